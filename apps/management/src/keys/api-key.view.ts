import type { ApiKeyView } from '@gw/contracts';
import type { ApiKey } from '../generated/prisma/client.js';
import { keyUsageAt } from '../usage/key-usage.js';

/**
 * The wire shape of spec §2.2. Usage buckets and `limit_remaining` are derived as of `now`
 * from the stored counters, so a bucket of a past period reads as 0 and nothing stale is
 * ever shown. Amounts are decimals in storage and JSON numbers on the wire, as the spec says.
 */
export function toApiKeyView(key: ApiKey, now = new Date()): ApiKeyView {
  const usage = keyUsageAt(key, now);
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
    limit: key.limit === null ? null : key.limit.toNumber(),
    limit_remaining: usage.limitRemaining === null ? null : usage.limitRemaining.toNumber(),
    limit_reset: key.limitReset,
    include_byok_in_limit: key.includeByokInLimit,
    rate_limit: { requests_per_minute: key.rateLimitRpm, concurrent_requests: key.concurrencyLimit },
    response_cache_ttl_seconds: key.responseCacheTtlSeconds,
    intern_id: key.internId,
    usage: usage.usage.toNumber(),
    usage_daily: usage.usageDaily.toNumber(),
    usage_weekly: usage.usageWeekly.toNumber(),
    usage_monthly: usage.usageMonthly.toNumber(),
    byok_usage: usage.byokUsage.toNumber(),
    byok_usage_daily: usage.byokUsageDaily.toNumber(),
    byok_usage_weekly: usage.byokUsageWeekly.toNumber(),
    byok_usage_monthly: usage.byokUsageMonthly.toNumber(),
    external_user: null,
  };
}
