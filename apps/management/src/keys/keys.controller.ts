import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { KeysGetRequest, KeysListRequest, SUBJECTS, type ApiKeyView } from '@gw/contracts';
import { KeysService } from './keys.service.js';

@Controller()
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @MessagePattern(SUBJECTS.management.keysList)
  list(@Payload() request: KeysListRequest): Promise<ApiKeyView[]> {
    return this.keys.list(request.principal, request);
  }

  @MessagePattern(SUBJECTS.management.keysGet)
  get(@Payload() request: KeysGetRequest): Promise<ApiKeyView> {
    return this.keys.get(request.principal, request.hash);
  }
}
