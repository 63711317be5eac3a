import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { WorkspaceModelsCall, WorkspaceModelsCallRequest } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { WorkspaceModelsService } from './workspace-models.service.js';

/** A workspace's own models, one operation per request (`op`). */
@Controller()
export class WorkspaceModelsController {
  constructor(private readonly models: WorkspaceModelsService) {}

  @MessagePattern(WorkspaceModelsCall.subject)
  call(@Payload() { principal, op, id, body }: WorkspaceModelsCallRequest): Promise<unknown> {
    if (op === 'list') return this.models.list(principal);
    if (!id) throw GatewayError.badRequest('The operation names no model id', { param: 'id' });
    switch (op) {
      case 'get':
        return this.models.get(principal, id);
      case 'put':
        return this.models.put(principal, id, body ?? {});
      case 'delete':
        return this.models.delete(principal, id);
    }
  }
}
