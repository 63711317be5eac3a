import type { ApiKeyView } from '@gw/contracts';
import type { ApiKey } from '../generated/prisma/client.js';

/**
 * The wire shape of spec §2.2. Usage counters stay 0 until usage is counted from
 * inference's usage events (issue: management service); `limit_remaining` is derived,
 * never stored.
 */
export function toApiKeyView(key: ApiKey): ApiKeyView {
  const usage = 0;
  const limit = key.limit === null ? null : key.limit.toNumber();
  return {
    hash: key.hash,
    name: key.name,
    label: key.label,
    created_at: key.createdAt.toISOString(),
    updated_at: key.updatedAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
    creator_user_id: key.creatorUserId,
    workspace_id: key.workspaceId,
    disabled: key.disabled,
    limit,
    limit_remaining: limit === null ? null : Math.max(0, limit - usage),
    limit_reset: key.limitReset,
    include_byok_in_limit: key.includeByokInLimit,
    usage,
    usage_daily: usage,
    usage_weekly: usage,
    usage_monthly: usage,
    byok_usage: usage,
    byok_usage_daily: usage,
    byok_usage_weekly: usage,
    byok_usage_monthly: usage,
    external_user: null,
  };
}
