import { Type } from 'class-transformer';
import { IsIn, IsISO8601, IsInt, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { KEY_HASH_PATTERN } from '../principal.js';

/** `GET /v1/generation?id=`: the generation id the answer carried (`gen-...`). */
export class GenerationQueryDto {
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  id!: string;
}

/** One provider call of a generation, in the order routing made them (`@openrouter/sdk` `ProviderResponse`). */
export interface ProviderResponseView {
  /** The catalog's provider id (e.g. `simulator-openai`). */
  provider_name: string;
  /** The model as the provider was asked for it. */
  model_permaslug: string;
  /** The provider's HTTP status: 200 for the call that answered; null when the call got none (or on rows stored before it was recorded). */
  status: number | null;
  /** Milliseconds to the call's answer (first byte, streamed) or failure. */
  latency?: number;
  is_byok?: boolean;
}

/**
 * `GET /v1/generation`'s `data`, the fields of `@openrouter/sdk`'s `GenerationResponseData`.
 * Token counts are the provider's own (the gateway does not re-tokenize), so `tokens_*` and
 * `native_tokens_*` are equal. A field the gateway does not record is null.
 */
export interface GenerationView {
  id: string;
  model: string;
  created_at: string;
  workspace_id: string | null;
  total_cost: number;
  usage: number;
  upstream_inference_cost: number | null;
  cache_discount: number | null;
  is_byok: boolean;
  provider_name: string | null;
  provider_responses: ProviderResponseView[] | null;
  tokens_prompt: number | null;
  tokens_completion: number | null;
  native_tokens_prompt: number | null;
  native_tokens_completion: number | null;
  native_tokens_reasoning: number | null;
  native_tokens_cached: number | null;
  native_tokens_completion_images: number | null;
  num_media_prompt: number | null;
  num_media_completion: number | null;
  num_input_audio_prompt: number | null;
  num_search_results: number | null;
  num_fetches: number | null;
  web_search_engine: string | null;
  latency: number | null;
  generation_time: number | null;
  moderation_latency: number | null;
  streamed: boolean | null;
  cancelled: boolean | null;
  finish_reason: string | null;
  native_finish_reason: string | null;
  upstream_id: string | null;
  preset_id: string | null;
  router: string | null;
  service_tier: string | null;
  api_type: 'completions' | 'embeddings' | null;
  session_id: string | null;
  request_id: string | null;
  response_cache_source_id: string | null;
  app_id: number | null;
  external_user: string | null;
  http_referer: string | null;
  user_agent: string | null;
  origin: string;
  data_region: 'global';
  /**
   * The gateway's own: the model catalog version whose prices the cost was computed at (its
   * prices never change once stored); null on generations recorded before catalog versions.
   */
  price_version: number | null;
}

export const GENERATION_STATUSES = ['succeeded', 'failed'] as const;
export const GENERATION_API_TYPES = ['completions', 'embeddings'] as const;
/** Rows per bus request when an export reads the list page by page. */
export const GENERATION_EXPORT_PAGE = 500;

/** Largest page of `GET /v1/generations`, and its default. */
export const GENERATION_PAGE_MAX = 100;
export const GENERATION_PAGE_DEFAULT = 50;

/** The filters of `GET /v1/generations` and its export: each one narrows, all together; `from` inclusive, `to` exclusive. */
export class GenerationFiltersDto {
  @IsOptional()
  @Matches(KEY_HASH_PATTERN, { message: 'key_hash must be a key hash (64 lower-case hex characters)' })
  key_hash?: string;

  /** The user the generation's key belongs to. */
  @IsOptional()
  @IsUUID()
  user_id?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  model?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  provider?: string;

  @IsOptional()
  @IsIn(GENERATION_STATUSES)
  status?: (typeof GENERATION_STATUSES)[number];

  /** The finish reason as the answer gave it (`stop`, `length`, `tool_calls`, ...). */
  @IsOptional()
  @Matches(/^[a-z_]{1,64}$/, { message: 'finish_reason must be a finish reason such as stop, length or tool_calls' })
  finish_reason?: string;

  /** From the catalog's kind of the model: an embeddings model, or any other. */
  @IsOptional()
  @IsIn(GENERATION_API_TYPES)
  api_type?: (typeof GENERATION_API_TYPES)[number];

  /** Only generations that cost the workspace more than this many credits. */
  @IsOptional()
  @Matches(/^\d{1,12}(\.\d{1,12})?$/, { message: 'cost_gt must be a decimal number of credits (e.g. 0.01)' })
  cost_gt?: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;
}

/** `GET /v1/generations`: newest first; `cursor` is the previous page's `next_cursor`. */
export class ListGenerationsQueryDto extends GenerationFiltersDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(GENERATION_PAGE_MAX)
  limit?: number;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'cursor must be the next_cursor of a previous page' })
  cursor?: string;
}

/** `GET /v1/generations/export`: every generation the filters select, newest first, as CSV or JSONL. */
export class ExportGenerationsQueryDto extends GenerationFiltersDto {
  @IsIn(['csv', 'jsonl'], { message: 'format must be csv or jsonl' })
  format!: 'csv' | 'jsonl';
}

/** One page of generations, newest first; `next_cursor` null on the last page. */
export interface GenerationListView {
  data: GenerationView[];
  next_cursor: string | null;
}
