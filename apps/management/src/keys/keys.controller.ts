import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  KeysCreateRequest,
  KeysDeleteForInternRequest,
  KeysDeleteRequest,
  KeysGetRequest,
  KeysListRequest,
  KeysUpdateRequest,
  SUBJECTS,
  type ApiKeyView,
  type KeysCreateReply,
} from '@gw/contracts';
import { KeyWritesService } from './key-writes.service.js';
import { KeysService } from './keys.service.js';

@Controller()
export class KeysController {
  constructor(
    private readonly keys: KeysService,
    private readonly writes: KeyWritesService,
  ) {}

  @MessagePattern(SUBJECTS.management.keysList)
  list(@Payload() request: KeysListRequest): Promise<ApiKeyView[]> {
    return this.keys.list(request.principal, request);
  }

  @MessagePattern(SUBJECTS.management.keysGet)
  get(@Payload() request: KeysGetRequest): Promise<ApiKeyView> {
    return this.keys.get(request.principal, request.hash);
  }

  @MessagePattern(SUBJECTS.management.keysCreate)
  create(@Payload() { principal, ...request }: KeysCreateRequest): Promise<KeysCreateReply> {
    return this.writes.create(principal, request);
  }

  @MessagePattern(SUBJECTS.management.keysUpdate)
  update(@Payload() request: KeysUpdateRequest): Promise<ApiKeyView> {
    return this.writes.update(request.principal, request);
  }

  @MessagePattern(SUBJECTS.management.keysDeleteForIntern)
  deleteForIntern(@Payload() request: KeysDeleteForInternRequest): Promise<{ deleted: number }> {
    return this.writes.deleteForIntern(request.workspaceId, request.internId);
  }

  @MessagePattern(SUBJECTS.management.keysDelete)
  delete(@Payload() request: KeysDeleteRequest): Promise<{ deleted: true }> {
    return this.writes.delete(request.principal, request.hash);
  }
}
