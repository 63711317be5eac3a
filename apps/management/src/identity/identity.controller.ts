import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  IdentityRequest,
  OidcCallbackRequest,
  type IdentityView,
  type OidcCallbackView,
  type OidcStartView,
  IdentityGet,
  IdentityUnlink,
  OidcCallback,
  OidcStart,
} from '@gw/contracts';
import { IdentityService, type WithChangedKeys } from './identity.service.js';

@Controller()
export class IdentityController {
  constructor(private readonly identity: IdentityService) {}

  @MessagePattern(IdentityGet.subject)
  get(@Payload() request: IdentityRequest): Promise<IdentityView> {
    return this.identity.get(request.principal);
  }

  @MessagePattern(OidcStart.subject)
  start(@Payload() request: IdentityRequest): Promise<OidcStartView> {
    return this.identity.start(request.principal);
  }

  @MessagePattern(OidcCallback.subject)
  callback(@Payload() request: OidcCallbackRequest): Promise<WithChangedKeys<OidcCallbackView>> {
    return this.identity.callback(request.query);
  }

  @MessagePattern(IdentityUnlink.subject)
  unlink(@Payload() request: IdentityRequest): Promise<WithChangedKeys<IdentityView>> {
    return this.identity.unlink(request.principal);
  }
}
