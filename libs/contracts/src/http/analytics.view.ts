import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { KEY_HASH_PATTERN } from '../principal.js';

/** What `POST /v1/analytics/query` can sum, as `GET /v1/analytics/meta` lists them. */
export const ANALYTICS_METRICS = {
  request_count: { label: 'Requests', format: 'number', rate: false },
  // Requests that failed, each once: streams broken after their first byte, plus requests answered with an error (not 401).
  error_count: { label: 'Failed requests', format: 'number', rate: false },
  streamed_count: { label: 'Streamed requests', format: 'number', rate: false },
  byok_request_count: { label: 'BYOK requests', format: 'number', rate: false },
  prompt_tokens: { label: 'Prompt tokens', format: 'number', rate: false },
  completion_tokens: { label: 'Completion tokens', format: 'number', rate: false },
  reasoning_tokens: { label: 'Reasoning tokens', format: 'number', rate: false },
  cached_tokens: { label: 'Cached prompt tokens', format: 'number', rate: false },
  total_tokens: { label: 'Total tokens', format: 'number', rate: false },
  usage: { label: 'Spend', format: 'currency', rate: false },
  upstream_cost: { label: 'Upstream cost', format: 'currency', rate: false },
  byok_usage_inference: { label: 'BYOK spend', format: 'currency', rate: false },
  avg_latency: { label: 'Average latency (ms)', format: 'latency', rate: true },
  avg_cost: { label: 'Average spend per request', format: 'currency', rate: true },
  error_rate: { label: 'Error rate', format: 'percent', rate: true },
  // Beyond the SDK's list: what the response cache saved (hits are billed at the cache price).
  response_cache_hits: { label: 'Response cache hits', format: 'number', rate: false },
  response_cache_cost_avoided: { label: 'Cost the response cache avoided', format: 'currency', rate: false },
  response_cache_savings: { label: 'Response cache savings (avoided less the cache price)', format: 'currency', rate: false },
} as const;
export type AnalyticsMetric = keyof typeof ANALYTICS_METRICS;
export const ANALYTICS_METRIC_NAMES = Object.keys(ANALYTICS_METRICS) as AnalyticsMetric[];

/** What rows can be grouped and filtered by (`api_key_id` takes a key hash, `user` a user id). */
export const ANALYTICS_DIMENSIONS = {
  model: 'Model',
  provider: 'Provider',
  endpoint: 'Endpoint (provider/upstream model)',
  api_key_id: 'API key (hash)',
  user: 'User',
  workspace: 'Workspace',
  // Beyond the SDK's list (open: strings from /meta): only with error_count; null for a stream broken after its first byte.
  error_type: 'Error type (with error_count only)',
} as const;
export type AnalyticsDimension = keyof typeof ANALYTICS_DIMENSIONS;
export const ANALYTICS_DIMENSION_NAMES = Object.keys(ANALYTICS_DIMENSIONS) as AnalyticsDimension[];

/** Time buckets: the rollups are hourly, so nothing finer than an hour. */
export const ANALYTICS_GRANULARITIES = { hour: 'Hour', day: 'Day', week: 'Week (from Monday)', month: 'Month' } as const;
export type AnalyticsGranularity = keyof typeof ANALYTICS_GRANULARITIES;

export const ANALYTICS_OPERATORS = { eq: 'scalar', neq: 'scalar', in: 'array', not_in: 'array' } as const;
export type AnalyticsOperator = keyof typeof ANALYTICS_OPERATORS;

export const ANALYTICS_LIMIT_DEFAULT = 1_000;
export const ANALYTICS_LIMIT_MAX = 10_000;
/** Longest time range a query may cover. */
export const ANALYTICS_RANGE_MAX_DAYS = 400;
/** Without a time_range, a query covers this many days up to now. */
export const ANALYTICS_RANGE_DEFAULT_DAYS = 30;

/** ISO 8601 UTC with seconds (fractions allowed), as the SDK sends `Date.toISOString()`. */
const UTC_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;

export class AnalyticsFilterDto {
  @IsIn(ANALYTICS_DIMENSION_NAMES, { message: `filters.field must be one of ${ANALYTICS_DIMENSION_NAMES.join(', ')}` })
  field!: AnalyticsDimension;

  @IsIn(Object.keys(ANALYTICS_OPERATORS), { message: 'filters.operator must be one of eq, neq, in, not_in' })
  operator!: AnalyticsOperator;

  /** A scalar for eq/neq, an array for in/not_in: checked against the operator by the service. */
  @IsDefined()
  value!: string | number | Array<string | number>;

  @IsOptional()
  @IsBoolean()
  include_unset?: boolean;
}

export class AnalyticsOrderByDto {
  @IsString()
  field!: string;

  @IsIn(['asc', 'desc'])
  direction!: 'asc' | 'desc';
}

export class AnalyticsTimeRangeDto {
  @Matches(UTC_SECONDS, { message: 'time_range.start must be an ISO 8601 UTC time with seconds (YYYY-MM-DDTHH:MM:SSZ)' })
  start!: string;

  @Matches(UTC_SECONDS, { message: 'time_range.end must be an ISO 8601 UTC time with seconds (YYYY-MM-DDTHH:MM:SSZ)' })
  end!: string;
}

/** `POST /v1/analytics/query` (`@openrouter/sdk` `analytics.queryAnalytics`). */
export class AnalyticsQueryDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ANALYTICS_METRIC_NAMES.length)
  @IsIn(ANALYTICS_METRIC_NAMES, { each: true, message: `metrics must be among ${ANALYTICS_METRIC_NAMES.join(', ')}` })
  metrics!: AnalyticsMetric[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(ANALYTICS_DIMENSION_NAMES.length)
  @IsIn(ANALYTICS_DIMENSION_NAMES, { each: true, message: `dimensions must be among ${ANALYTICS_DIMENSION_NAMES.join(', ')}` })
  dimensions?: AnalyticsDimension[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @ValidateNested({ each: true })
  @Type(() => AnalyticsFilterDto)
  filters?: AnalyticsFilterDto[];

  @IsOptional()
  @IsIn(Object.keys(ANALYTICS_GRANULARITIES), { message: 'granularity must be one of hour, day, week, month' })
  granularity?: AnalyticsGranularity;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(ANALYTICS_LIMIT_MAX)
  group_limit?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(ANALYTICS_LIMIT_MAX)
  limit?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => AnalyticsOrderByDto)
  order_by?: AnalyticsOrderByDto;

  @IsOptional()
  @ValidateNested()
  @Type(() => AnalyticsTimeRangeDto)
  time_range?: AnalyticsTimeRangeDto;

  /** Accepted by the SDK's shape; refused with a 400 naming why (no classifiers run here). */
  @IsOptional()
  classifier_dimensions?: unknown;

  @IsOptional()
  classifier_filters?: unknown;
}

/** One row: the bucket's start as `date` (with a granularity), the requested dimensions and metrics. */
export type AnalyticsRow = Record<string, string | number | null>;

/** `POST /v1/analytics/query`'s `data`. */
export interface AnalyticsResultView {
  data: AnalyticsRow[];
  metadata: { query_time_ms: number; row_count: number; truncated: boolean };
  warnings?: string[];
}

export interface AnalyticsMetaView {
  dimensions: Array<{ name: string; display_label: string }>;
  granularities: Array<{ name: string; display_label: string }>;
  metrics: Array<{ name: string; display_label: string; display_format: string; is_rate: boolean }>;
  operators: Array<{ name: string; value_type: 'scalar' | 'array' }>;
}

/** `GET /v1/activity` (`analytics.getUserActivity`): one UTC date, or the last 30 completed days. */
export class ActivityQueryDto {
  @IsOptional()
  @Matches(/^\d{4}-\d\d-\d\d$/, { message: 'date must be a UTC date (YYYY-MM-DD)' })
  date?: string;

  @IsOptional()
  @Matches(KEY_HASH_PATTERN, { message: 'api_key_hash must be a key hash (64 lower-case hex characters)' })
  api_key_hash?: string;

  @IsOptional()
  @IsUUID()
  user_id?: string;

  @IsOptional()
  @IsIn(['workspace'])
  group_by?: 'workspace';

  @IsOptional()
  @IsUUID()
  workspace_id?: string;
}

/** One row of activity: a date × model × endpoint (`@openrouter/sdk` `ActivityItem`). */
export interface ActivityItemView {
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
  /** Not in the SDK's ActivityItem (its parser drops it; raw JSON has it): generations answered from the response cache. */
  response_cache_hits: number;
  /** Not in the SDK's ActivityItem: what those hits avoided less what they were charged at the cache price. */
  response_cache_savings: number;
  workspace_id?: string;
}
