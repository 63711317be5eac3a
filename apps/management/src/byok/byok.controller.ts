import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ByokCreateRequest,
  ByokDeleteRequest,
  ByokGetRequest,
  ByokListRequest,
  ByokResolveRequest,
  ByokUpdateRequest,
  SUBJECTS,
  type ByokCredentialPage,
  type ByokCredentialView,
  type ByokResolveReply,
} from '@gw/contracts';
import { ByokService } from './byok.service.js';

@Controller()
export class ByokController {
  constructor(private readonly byok: ByokService) {}

  @MessagePattern(SUBJECTS.management.byokCreate)
  create(@Payload() request: ByokCreateRequest): Promise<ByokCredentialView> {
    return this.byok.create(request.principal, request.credential);
  }

  @MessagePattern(SUBJECTS.management.byokList)
  list(@Payload() request: ByokListRequest): Promise<ByokCredentialPage> {
    return this.byok.list(request.principal, request);
  }

  @MessagePattern(SUBJECTS.management.byokGet)
  get(@Payload() request: ByokGetRequest): Promise<ByokCredentialView> {
    return this.byok.get(request.principal, request.id);
  }

  @MessagePattern(SUBJECTS.management.byokUpdate)
  update(@Payload() request: ByokUpdateRequest): Promise<ByokCredentialView> {
    return this.byok.update(request.principal, request.id, request.changes);
  }

  @MessagePattern(SUBJECTS.management.byokDelete)
  delete(@Payload() request: ByokDeleteRequest): Promise<{ deleted: true }> {
    return this.byok.delete(request.principal, request.id);
  }

  /** Inference only: the reply carries plaintext secrets (ADR byok: NATS must use TLS in production). */
  @MessagePattern(SUBJECTS.management.byokResolve)
  resolve(@Payload() request: ByokResolveRequest): Promise<ByokResolveReply> {
    return this.byok.resolve(request.workspaceId, request.provider);
  }
}
