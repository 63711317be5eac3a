import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  IdentityRequest,
  OidcCallbackRequest,
  SUBJECTS,
  type IdentityView,
  type OidcCallbackView,
  type OidcStartView,
} from '@gw/contracts';
import { IdentityService, type WithChangedKeys } from './identity.service.js';

@Controller()
export class IdentityController {
  constructor(private readonly identity: IdentityService) {}

  @MessagePattern(SUBJECTS.management.identityGet)
  get(@Payload() request: IdentityRequest): Promise<IdentityView> {
    return this.identity.get(request.principal);
  }

  @MessagePattern(SUBJECTS.management.identityOidcStart)
  start(@Payload() request: IdentityRequest): Promise<OidcStartView> {
    return this.identity.start(request.principal);
  }

  @MessagePattern(SUBJECTS.management.identityOidcCallback)
  callback(@Payload() request: OidcCallbackRequest): Promise<WithChangedKeys<OidcCallbackView>> {
    return this.identity.callback(request.query);
  }

  @MessagePattern(SUBJECTS.management.identityUnlink)
  unlink(@Payload() request: IdentityRequest): Promise<WithChangedKeys<IdentityView>> {
    return this.identity.unlink(request.principal);
  }
}
