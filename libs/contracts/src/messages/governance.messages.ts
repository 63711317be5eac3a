import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsObject, IsOptional, Matches, ValidateNested } from 'class-validator';
import { WORKSPACE_MODEL_ID_PATTERN } from '../http/model-rules.js';
import { Principal } from '../principal.js';

/*
 * Workspaces, members, budgets, organization members and guardrails: one request shape per
 * family, the operation named in `op` (the gateway validated the body and query with the
 * DTOs of http/workspace.view.ts and http/guardrail.view.ts; management validates them again).
 */

export const WORKSPACE_OPS = [
  'list',
  'get',
  'create',
  'update',
  'delete',
  'members.list',
  'members.add',
  'members.remove',
  'budgets.list',
  'budgets.get',
  'budgets.set',
  'budgets.delete',
  'member-budgets.list',
  'member-budgets.set',
  'member-budgets.delete',
  'organization.members',
] as const;
export type WorkspaceOp = (typeof WORKSPACE_OPS)[number];

export const GUARDRAIL_OPS = [
  'list',
  'get',
  'create',
  'update',
  'delete',
  'keys.list',
  'keys.assign',
  'keys.unassign',
  'members.list',
  'members.assign',
  'members.unassign',
  'assignments.keys',
  'assignments.members',
] as const;
export type GuardrailOp = (typeof GUARDRAIL_OPS)[number];

/** Path and query values by name (ids, refs, interval, offset, limit...). */
export type CallParams = Record<string, string | number | boolean | undefined>;

export class WorkspacesCallRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsIn(WORKSPACE_OPS)
  op!: WorkspaceOp;

  @IsObject()
  params!: CallParams;

  @IsOptional()
  @IsObject()
  body?: Record<string, unknown>;
}

export class GuardrailsCallRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsIn(GUARDRAIL_OPS)
  op!: GuardrailOp;

  @IsObject()
  params!: CallParams;

  @IsOptional()
  @IsObject()
  body?: Record<string, unknown>;
}

export class AuditLogListRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  /** The query of GET /v1/audit-logs (AuditLogQueryDto), validated again by management. */
  @IsObject()
  query!: Record<string, unknown>;
}

export const WORKSPACE_MODEL_OPS = ['list', 'get', 'put', 'delete'] as const;
export type WorkspaceModelOp = (typeof WORKSPACE_MODEL_OPS)[number];

/** Gateway -> management: one operation on the key's workspace's own models. */
export class WorkspaceModelsCallRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsIn(WORKSPACE_MODEL_OPS)
  op!: WorkspaceModelOp;

  /** The model id (`get`, `put`, `delete`). */
  @IsOptional()
  @Matches(WORKSPACE_MODEL_ID_PATTERN)
  id?: string;

  /** `put`: the model (WorkspaceModelDto), validated again by management. */
  @IsOptional()
  @IsObject()
  body?: Record<string, unknown>;
}
