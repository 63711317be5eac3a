import type { WorkspaceView } from '@gw/contracts';
import type { Workspace } from '../generated/prisma/client.js';

export type WorkspaceRow = Workspace & { guardrails: { id: string }[] };

/** Selects what the view needs besides the row: the workspace's default guardrail. */
export const WITH_DEFAULT_GUARDRAIL = { guardrails: { where: { isWorkspaceDefault: true }, select: { id: true } } } as const;

/** A workspace as @openrouter/sdk reads it. A workspace made before slugs answers its id as slug. */
export function toWorkspaceView(row: WorkspaceRow): WorkspaceView {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug ?? row.id,
    description: row.description,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    created_by: row.createdBy,
    default_guardrail_id: row.guardrails[0]?.id ?? '',
    default_text_model: row.defaultTextModel,
    default_image_model: row.defaultImageModel,
    default_provider_sort: row.defaultProviderSort,
    disabled_server_tools: row.disabledServerTools,
    include_byok_in_budgets: row.includeByokInBudgets,
    io_logging_api_key_ids: null,
    io_logging_sampling_rate: row.ioLoggingSamplingRate,
    is_data_discount_logging_enabled: row.isDataDiscountLoggingEnabled,
    is_observability_broadcast_enabled: row.isObservabilityBroadcastEnabled,
    is_observability_io_logging_enabled: row.isObservabilityIoLoggingEnabled,
  };
}
