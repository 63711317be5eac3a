import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { WorkspacesCall, WorkspacesCallRequest } from '@gw/contracts';
import { WorkspaceAdminService } from './workspace-admin.service.js';
import { WorkspaceBudgetsService } from './workspace-budgets.service.js';
import { WorkspaceMembersService } from './workspace-members.service.js';

const text = (value: unknown): string => (typeof value === 'string' ? value : String(value ?? ''));

/** Workspaces, members, budgets and organization members, one operation per request (`op`). */
@Controller()
export class WorkspacesController {
  constructor(
    private readonly workspaces: WorkspaceAdminService,
    private readonly members: WorkspaceMembersService,
    private readonly budgets: WorkspaceBudgetsService,
  ) {}

  @MessagePattern(WorkspacesCall.subject)
  call(@Payload() { principal, op, params, body }: WorkspacesCallRequest): Promise<unknown> {
    const ref = text(params.ref);
    switch (op) {
      case 'list':
        return this.workspaces.list(principal, params);
      case 'get':
        return this.workspaces.get(principal, ref);
      case 'create':
        return this.workspaces.create(principal, body);
      case 'update':
        return this.workspaces.update(principal, ref, body);
      case 'delete':
        return this.workspaces.delete(principal, ref, params);
      case 'members.list':
        return this.members.list(principal, ref, params);
      case 'members.add':
        return this.members.add(principal, ref, body);
      case 'members.remove':
        return this.members.remove(principal, ref, body);
      case 'organization.members':
        return this.members.organization(principal, params);
      case 'budgets.list':
        return this.budgets.list(principal, ref);
      case 'budgets.get':
        return this.budgets.get(principal, ref, params.interval);
      case 'budgets.set':
        return this.budgets.set(principal, ref, params.interval, body);
      case 'budgets.delete':
        return this.budgets.delete(principal, ref, params.interval);
      case 'member-budgets.list':
        return this.budgets.list(principal, ref, text(params.user_id));
      case 'member-budgets.set':
        return this.budgets.set(principal, ref, params.interval, body, text(params.user_id));
      case 'member-budgets.delete':
        return this.budgets.delete(principal, ref, params.interval, text(params.user_id));
    }
  }
}
