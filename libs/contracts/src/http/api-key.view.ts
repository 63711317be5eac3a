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
