/**
 * The public API's shapes the pages read (docs/openapi.json; snake_case on the wire as the
 * SDKs' raw answers); where the gateway follows `@openrouter/sdk`, its models.
 */
export interface Page<T> {
  data: T[];
  next_cursor?: string | null;
  total_count?: number;
}

/** The SDK's `ActivityItem` (analytics.getUserActivity), on the wire. */
export interface ActivityItem {
  date: string;
  model: string;
  model_permaslug: string;
  endpoint_id: string;
  provider_name: string;
  usage: number;
  byok_usage_inference: number;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  workspace_id?: string;
}

/** One provider call of a generation, in routing order (the SDK's `ProviderResponse`). */
export interface ProviderResponse {
  provider_name: string;
  model_permaslug: string;
  /** The provider's HTTP status; null when the call got none (a connect error or a timeout). */
  status: number | null;
  /** Milliseconds to the call's answer or failure; absent on rows recorded before it was kept. */
  latency?: number;
  is_byok?: boolean;
}

/** The SDK's `GenerationResponseData`, the fields the explorer shows. */
export interface Generation {
  id: string;
  model: string;
  created_at: string;
  total_cost: number;
  usage: number;
  upstream_inference_cost: number | null;
  cache_discount: number | null;
  is_byok: boolean;
  provider_name: string | null;
  provider_responses: ProviderResponse[] | null;
  tokens_prompt: number | null;
  tokens_completion: number | null;
  native_tokens_reasoning: number | null;
  native_tokens_cached: number | null;
  latency: number | null;
  generation_time: number | null;
  moderation_latency: number | null;
  streamed: boolean | null;
  cancelled: boolean | null;
  finish_reason: string | null;
  native_finish_reason: string | null;
  api_type: string | null;
  request_id: string | null;
  session_id: string | null;
  response_cache_source_id: string | null;
  price_version: number | null;
  origin: string;
}

/** `GET /v1/generation/content`'s `data` (the SDK's `GenerationContentData`). */
export interface GenerationContent {
  input: { messages: unknown[] } | { prompt: string };
  output: { completion: string | null; reasoning: string | null };
}

/** `GET/PUT /v1/content-logging`'s `data`. */
export interface ContentLogging {
  enabled: boolean;
  retention_days: number;
  max_retention_days: number;
  max_bytes: number;
  /** False when the deployment has no key to seal contents with. */
  available: boolean;
}

export interface ApiKey {
  hash: string;
  name: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  disabled: boolean;
  limit: number | null;
  limit_remaining: number | null;
  limit_reset: string | null;
  include_byok_in_limit: boolean;
  rate_limit: { requests_per_minute: number | null; concurrent_requests: number | null };
  response_cache_ttl_seconds: number | null;
  /** Set on an intern's keys. */
  intern_id: string | null;
  usage: number;
  usage_monthly: number;
}

export interface Preset {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  status: string;
  updated_at: string;
  designated_version: PresetVersion;
}

export interface PresetVersion {
  id: string;
  version: number;
  config: Record<string, unknown>;
  system_prompt: string | null;
  created_at: string;
}

export interface ByokCredential {
  id: string;
  name: string;
  provider: string;
  label: string;
  disabled: boolean;
  is_fallback: boolean;
  created_at: string;
}

export interface Batch {
  id: string;
  endpoint: string;
  model: string;
  status: string;
  created_at: number;
  request_counts: { total: number; completed: number; failed: number };
  /** Why the batch failed or expired. */
  error: { message: string } | null;
  finalized_at: number | null;
  /** Set once ended, each when it holds a line: the results exist. */
  output_file_id: string | null;
  error_file_id: string | null;
}

/** OpenAI's batch list envelope: pages by `after` = the last id. */
export interface BatchPage {
  data: Batch[];
  last_id: string | null;
  has_more: boolean;
}

/** The SDK's `Workspace`, `WorkspaceMember`, `WorkspaceBudget` (workspaces.*), on the wire. */
export interface Workspace {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  created_at: string;
}

export interface WorkspaceMember {
  id: string;
  user_id: string;
  workspace_id: string;
  role: string;
  created_at: string;
  /** The gateway's additions to the SDK's shape. */
  name?: string | null;
  email?: string;
}

/** `organization.listMembers`: everyone who shares a workspace with the signed-in user. */
export interface OrganizationMember {
  id: string;
  email: string;
  first_name: string | null;
}

export interface WorkspaceBudget {
  id: string;
  workspace_id: string;
  /** Set on a member's budget. */
  user_id?: string;
  limit_usd: number;
  reset_interval: string | null;
  /** Spend counted in the current period. */
  usage_usd: number;
  updated_at: string;
}

/** The SDK's `Guardrail` (guardrails.*), on the wire. */
export interface Guardrail {
  id: string;
  workspace_id: string | null;
  name: string;
  description: string | null;
  limit_usd: number | null;
  reset_interval: string | null;
  allowed_models: string[] | null;
  ignored_models: string[] | null;
  allowed_providers: string[] | null;
  ignored_providers: string[] | null;
  include_byok_in_budgets: boolean;
  created_at: string;
  updated_at: string | null;
}

/** The SDK's `KeyAssignment` / `MemberAssignment` (guardrails.list*Assignments), on the wire. */
export interface GuardrailKeyAssignment {
  id: string;
  key_hash: string;
  key_name: string;
  created_at: string;
}

export interface GuardrailMemberAssignment {
  id: string;
  user_id: string;
  created_at: string;
}

/** `@openrouter/sdk`'s `Intern`, on the wire. */
export interface Intern {
  id: string;
  name: string;
  description: string | null;
  model: string | null;
  hostname: string | null;
  status: string;
  created_at: string;
}

/** One model of `GET /v1/models`: prices per token, decimals as strings. */
export interface Model {
  id: string;
  name: string;
  context_length: number;
  pricing: { prompt: string; completion: string; input_cache_read: string; request?: string };
}

/** One model of the operator's catalog (`GET /v1/admin/models`), as the catalog file holds it. */
export interface CatalogModel {
  id: string;
  name: string;
  endpoints: { provider: string; upstreamModel: string; pricing: { prompt: string; completion: string; [price: string]: unknown } }[];
  [field: string]: unknown;
}

export interface AuditEntry {
  id: string;
  created_at: string;
  actor: { kind: string; user_id: string | null; key_hash: string | null; name?: string | null };
  action: string;
  resource_type: string;
  resource_id: string;
  before: unknown;
  after: unknown;
}
