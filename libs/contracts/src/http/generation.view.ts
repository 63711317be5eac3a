import { Type } from 'class-transformer';
import { IsISO8601, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
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
  /** 200 for the call that answered; null for an earlier attempt, whose status is not recorded. */
  status: number | null;
  is_byok?: boolean;
}

/**
 * `GET /v1/generation`'s `data`, the fields of `@openrouter/sdk`'s `GenerationResponseData`.
 * Token counts are the provider's own (the gateway does not re-tokenize), so `tokens_*` and
 * `native_tokens_*` are equal. A field the gateway does not record is null (docs/adr/0108).
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

/** Largest page of `GET /v1/generations`, and its default. */
export const GENERATION_PAGE_MAX = 100;
export const GENERATION_PAGE_DEFAULT = 50;

/** `GET /v1/generations`: newest first; `cursor` is the previous page's `next_cursor`; `from` inclusive, `to` exclusive. */
export class ListGenerationsQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(GENERATION_PAGE_MAX)
  limit?: number;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'cursor must be the next_cursor of a previous page' })
  cursor?: string;

  @IsOptional()
  @Matches(KEY_HASH_PATTERN, { message: 'key_hash must be a key hash (64 lower-case hex characters)' })
  key_hash?: string;

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
  @IsISO8601({ strict: true })
  from?: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;
}

/** One page of generations, newest first; `next_cursor` null on the last page. */
export interface GenerationListView {
  data: GenerationView[];
  next_cursor: string | null;
}
