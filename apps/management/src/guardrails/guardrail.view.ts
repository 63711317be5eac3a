import type { GuardrailKeyAssignmentView, GuardrailMemberAssignmentView, GuardrailView } from '@gw/contracts';
import type { ApiKey, Guardrail, GuardrailKeyAssignment, GuardrailMemberAssignment } from '../generated/prisma/client.js';

/** Stored empty, answered null: null (unrestricted) is what the SDK reads. */
const listOrNull = (values: string[]) => (values.length === 0 ? null : values);

export function toGuardrailView(row: Guardrail): GuardrailView {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    description: row.description,
    allowed_models: listOrNull(row.allowedModels),
    ignored_models: listOrNull(row.ignoredModels),
    allowed_providers: listOrNull(row.allowedProviders),
    ignored_providers: listOrNull(row.ignoredProviders),
    limit_usd: row.limitUsd === null ? null : row.limitUsd.toNumber(),
    reset_interval: row.resetInterval,
    include_byok_in_budgets: row.includeByokInBudgets,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export const toKeyAssignmentView = (row: GuardrailKeyAssignment & { key: Pick<ApiKey, 'name' | 'label'> }): GuardrailKeyAssignmentView => ({
  id: row.id,
  guardrail_id: row.guardrailId,
  key_hash: row.keyHash,
  key_name: row.key.name,
  key_label: row.key.label,
  assigned_by: row.assignedBy,
  created_at: row.createdAt.toISOString(),
});

export const toMemberAssignmentView = (row: GuardrailMemberAssignment): GuardrailMemberAssignmentView => ({
  id: row.id,
  guardrail_id: row.guardrailId,
  user_id: row.userId,
  organization_id: row.workspaceId,
  assigned_by: row.assignedBy,
  created_at: row.createdAt.toISOString(),
});
