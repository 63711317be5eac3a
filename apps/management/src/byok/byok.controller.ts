import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ByokCreateRequest,
  ByokDeleteRequest,
  ByokGetRequest,
  ByokListRequest,
  ByokResolveRequest,
  ByokUpdateRequest,
  type ByokCredentialPage,
  type ByokCredentialView,
  type ByokResolveReply,
  ByokCreate,
  ByokDelete,
  ByokGet,
  ByokList,
  ByokResolve,
  ByokUpdate,
} from '@gw/contracts';
import { ByokService } from './byok.service.js';

@Controller()
export class ByokController {
  constructor(private readonly byok: ByokService) {}

  @MessagePattern(ByokCreate.subject)
  create(@Payload() request: ByokCreateRequest): Promise<ByokCredentialView> {
    return this.byok.create(request.principal, request.credential);
  }

  @MessagePattern(ByokList.subject)
  list(@Payload() request: ByokListRequest): Promise<ByokCredentialPage> {
    return this.byok.list(request.principal, request);
  }

  @MessagePattern(ByokGet.subject)
  get(@Payload() request: ByokGetRequest): Promise<ByokCredentialView> {
    return this.byok.get(request.principal, request.id);
  }

  @MessagePattern(ByokUpdate.subject)
  update(@Payload() request: ByokUpdateRequest): Promise<ByokCredentialView> {
    return this.byok.update(request.principal, request.id, request.changes);
  }

  @MessagePattern(ByokDelete.subject)
  delete(@Payload() request: ByokDeleteRequest): Promise<{ deleted: true }> {
    return this.byok.delete(request.principal, request.id);
  }

  /** Inference only: the reply carries plaintext secrets (ADR byok: NATS must use TLS in production). */
  @MessagePattern(ByokResolve.subject)
  resolve(@Payload() request: ByokResolveRequest): Promise<ByokResolveReply> {
    return this.byok.resolve(request.workspaceId, request.provider);
  }
}
