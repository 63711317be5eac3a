import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AnyFileRef,
  FileAppendRequest,
  FileCompleteRequest,
  FileContentRequest,
  FileCreateRequest,
  FileListRequest,
  FileRef,
  type FileContentPart,
  type FileCreatedReply,
  type FileDeletedView,
  type FileListView,
  type FileView,
  FilesAbort,
  FilesAppend,
  FilesComplete,
  FilesContent,
  FilesCreate,
  FilesDelete,
  FilesGet,
  FilesList,
} from '@gw/contracts';
import { FilesService } from './files.service.js';

/** The files API on NATS (gateway -> batch). */
@Controller()
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @MessagePattern(FilesCreate.subject)
  create(@Payload() request: FileCreateRequest): Promise<FileCreatedReply> {
    return this.files.create(request.principal, request.filename);
  }

  @MessagePattern(FilesAppend.subject)
  append(@Payload() request: FileAppendRequest): Promise<{ stored: number }> {
    return this.files.append(request);
  }

  @MessagePattern(FilesComplete.subject)
  complete(@Payload() request: FileCompleteRequest): Promise<FileView> {
    return this.files.complete(request);
  }

  @MessagePattern(FilesAbort.subject)
  abort(@Payload() request: FileRef): Promise<{ aborted: boolean }> {
    return this.files.abort(request.principal, request.fileId);
  }

  @MessagePattern(FilesList.subject)
  list(@Payload() request: FileListRequest): Promise<FileListView> {
    return this.files.list(request);
  }

  @MessagePattern(FilesGet.subject)
  get(@Payload() request: AnyFileRef): Promise<FileView> {
    return this.files.get(request.principal, request.fileId);
  }

  @MessagePattern(FilesContent.subject)
  content(@Payload() request: FileContentRequest): Promise<FileContentPart> {
    return this.files.content(request.principal, request.fileId, request.part);
  }

  @MessagePattern(FilesDelete.subject)
  delete(@Payload() request: FileRef): Promise<FileDeletedView> {
    return this.files.delete(request.principal, request.fileId);
  }
}
