export const LIMIT_RESETS = ['daily', 'weekly', 'monthly'] as const;
export type LimitReset = (typeof LIMIT_RESETS)[number];

/** The API key object of spec §2.2 as it goes over the wire. The secret is never part of it. */
export interface ApiKeyView {
  hash: string;
  name: string;
  label: string;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  creator_user_id: string;
  workspace_id: string;
  disabled: boolean;
  limit: number | null;
  limit_remaining: number | null;
  limit_reset: LimitReset | null;
  include_byok_in_limit: boolean;
  /** The key's own limits as set (null: the gateway's default); what POST and PATCH take, so a copy can be made of a key. */
  rate_limit: { requests_per_minute: number | null; concurrent_requests: number | null };
  /** Responses answered from the cache by default for this many seconds; null: only requests that opt in. */
  response_cache_ttl_seconds: number | null;
  /** The intern the key belongs to (a key made with `intern_id`), else null. */
  intern_id: string | null;
  usage: number;
  usage_daily: number;
  usage_weekly: number;
  usage_monthly: number;
  byok_usage: number;
  byok_usage_daily: number;
  byok_usage_weekly: number;
  byok_usage_monthly: number;
  external_user: null;
}

export interface DataEnvelope<T> {
  data: T;
}
