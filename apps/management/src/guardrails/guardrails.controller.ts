import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { GuardrailsCall, GuardrailsCallRequest } from '@gw/contracts';
import { GuardrailAssignmentsService } from './guardrail-assignments.service.js';
import { GuardrailsService } from './guardrails.service.js';

/** Guardrails and their assignments, one operation per request (`op`). */
@Controller()
export class GuardrailsController {
  constructor(
    private readonly guardrails: GuardrailsService,
    private readonly assignments: GuardrailAssignmentsService,
  ) {}

  @MessagePattern(GuardrailsCall.subject)
  call(@Payload() { principal, op, params, body }: GuardrailsCallRequest): Promise<unknown> {
    const id = String(params.id ?? '');
    switch (op) {
      case 'list':
        return this.guardrails.list(principal, params);
      case 'get':
        return this.guardrails.get(principal, id);
      case 'create':
        return this.guardrails.create(principal, body);
      case 'update':
        return this.guardrails.update(principal, id, body);
      case 'delete':
        return this.guardrails.delete(principal, id);
      case 'keys.list':
        return this.assignments.listKeys(principal, id, params);
      case 'keys.assign':
        return this.assignments.assignKeys(principal, id, body);
      case 'keys.unassign':
        return this.assignments.unassignKeys(principal, id, body);
      case 'members.list':
        return this.assignments.listMembers(principal, id, params);
      case 'members.assign':
        return this.assignments.assignMembers(principal, id, body);
      case 'members.unassign':
        return this.assignments.unassignMembers(principal, id, body);
      case 'assignments.keys':
        return this.assignments.listKeys(principal, undefined, params);
      case 'assignments.members':
        return this.assignments.listMembers(principal, undefined, params);
    }
  }
}
