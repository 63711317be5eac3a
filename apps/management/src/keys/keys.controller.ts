import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  KeysCreateRequest,
  KeysDeleteForInternRequest,
  KeysDeleteRequest,
  KeysGetRequest,
  KeysListRequest,
  KeysUpdateRequest,
  type ApiKeyView,
  type KeysCreateReply,
  KeysCreate,
  KeysDelete,
  KeysDeleteForIntern,
  KeysGet,
  KeysList,
  KeysUpdate,
} from '@gw/contracts';
import { KeyWritesService } from './key-writes.service.js';
import { KeysService } from './keys.service.js';

@Controller()
export class KeysController {
  constructor(
    private readonly keys: KeysService,
    private readonly writes: KeyWritesService,
  ) {}

  @MessagePattern(KeysList.subject)
  list(@Payload() request: KeysListRequest): Promise<ApiKeyView[]> {
    return this.keys.list(request.principal, request);
  }

  @MessagePattern(KeysGet.subject)
  get(@Payload() request: KeysGetRequest): Promise<ApiKeyView> {
    return this.keys.get(request.principal, request.hash);
  }

  @MessagePattern(KeysCreate.subject)
  create(@Payload() { principal, ...request }: KeysCreateRequest): Promise<KeysCreateReply> {
    return this.writes.create(principal, request);
  }

  @MessagePattern(KeysUpdate.subject)
  update(@Payload() request: KeysUpdateRequest): Promise<ApiKeyView> {
    return this.writes.update(request.principal, request);
  }

  @MessagePattern(KeysDeleteForIntern.subject)
  deleteForIntern(@Payload() request: KeysDeleteForInternRequest): Promise<{ deleted: number }> {
    return this.writes.deleteForIntern(request.workspaceId, request.internId);
  }

  @MessagePattern(KeysDelete.subject)
  delete(@Payload() request: KeysDeleteRequest): Promise<{ deleted: true }> {
    return this.writes.delete(request.principal, request.hash);
  }
}
