import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { KEY_HASH_PATTERN } from '../principal.js';
import { ClientHeaders } from './client-headers.js';

/** A non-negative decimal as a string: money never passes through a float on the wire. */
export const DECIMAL_STRING = /^\d+(\.\d+)?$/;

/** A decimal that may be negative (a prompt-cache write can cost more than it saves). */
export const SIGNED_DECIMAL_STRING = /^-?\d+(\.\d+)?$/;

/** A W3C `traceparent` (version 00): version, trace id, parent span id, flags. */
export const TRACEPARENT_PATTERN = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;

/** Most events in one `UsageRecordedBatch` message (~60 KB, far below NATS' 1 MB). */
export const USAGE_BATCH_MAX_EVENTS = 100;

/** A generation's usage details (spec §2.1 names, flattened): each an integer the provider reported. */
export class UsageDetails {
  @IsOptional() @IsInt() @Min(0) cache_write_tokens?: number;
  @IsOptional() @IsInt() @Min(0) prompt_audio_tokens?: number;
  @IsOptional() @IsInt() @Min(0) prompt_file_tokens?: number;
  @IsOptional() @IsInt() @Min(0) prompt_video_tokens?: number;
  @IsOptional() @IsInt() @Min(0) completion_audio_tokens?: number;
  @IsOptional() @IsInt() @Min(0) completion_image_tokens?: number;
  @IsOptional() @IsInt() @Min(0) server_tool_calls_executed?: number;
  @IsOptional() @IsInt() @Min(0) server_tool_calls_requested?: number;
  @IsOptional() @IsInt() @Min(0) web_search_requests?: number;
  /** A stream cut before the provider's counts: the characters its completion estimate was made from. */
  @IsOptional() @IsInt() @Min(0) estimated_from_characters?: number;
  /** Set when that estimate was above the answer's bound (`max_tokens` x `n`) and billed at the bound. */
  @IsOptional() @IsInt() @Min(0) estimate_capped_at?: number;
}

/**
 * Inference -> JetStream stream USAGE, subject `events.usage.recorded`, each generation published
 * once: alone as this bare object with `Nats-Msg-Id` = `generationId` (JetStream drops a
 * duplicate publish), or, under load, inside a `UsageRecordedBatch`.
 * Consumers (management's counters and credits, inference's generation records, batch's
 * per-batch cost) must still be idempotent on `generationId`: a redelivery after a crash
 * is normal.
 */
export class UsageRecordedEvent extends ClientHeaders {
  @IsString()
  @MaxLength(128)
  generationId!: string;

  @IsUUID()
  workspaceId!: string;

  @Matches(KEY_HASH_PATTERN)
  keyHash!: string;

  @IsUUID()
  userId!: string;

  /** Public model id as the client asked for it (after preset / fallback resolution). */
  @IsString()
  model!: string;

  /** Provider id of the catalog (e.g. `simulator-openai`). */
  @IsString()
  provider!: string;

  @IsString()
  upstreamModel!: string;

  @IsIn(['succeeded', 'failed'])
  status!: 'succeeded' | 'failed';

  @IsBoolean()
  isByok!: boolean;

  @IsInt()
  @Min(0)
  promptTokens!: number;

  @IsInt()
  @Min(0)
  completionTokens!: number;

  @IsInt()
  @Min(0)
  cachedTokens!: number;

  @IsInt()
  @Min(0)
  reasoningTokens!: number;

  /** True when the provider sent no counts (a stream cut short) and they were estimated. */
  @IsBoolean()
  tokensEstimated!: boolean;

  /** Credits charged to the workspace: the catalog price, or only the gateway's fee on BYOK. */
  @Matches(DECIMAL_STRING)
  cost!: string;

  /** What the provider charges at catalog prices (on BYOK, paid by the workspace's own key). */
  @Matches(DECIMAL_STRING)
  upstreamCost!: string;

  @IsInt()
  @Min(0)
  latencyMs!: number;

  @IsISO8601({ strict: true })
  createdAt!: string;

  /** The catalog version whose prices the cost was computed at (absent from older publishers). */
  @IsOptional()
  @IsInt()
  @Min(1)
  priceVersion?: number;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  sessionId?: string;

  /**
   * Set when the generation ran as a line of a batch: management counts it in no balance; the
   * batch's own `batch_charge` event does, once.
   */
  @IsOptional()
  @IsString()
  batchId?: string;

  /**
   * `batch_charge`: not a generation but the one charge of a finalized batch (generationId = the
   * batch id, the sums of its lines), published by the batch service. Absent: a generation.
   */
  @IsOptional()
  @IsIn(['generation', 'batch_charge'])
  kind?: 'generation' | 'batch_charge';

  /** How many provider calls routing made (1 = the first endpoint answered). */
  @IsOptional()
  @IsInt()
  @Min(1)
  attempts?: number;

  /** `<provider id>/<upstream model>` of every endpoint tried, in order, the answering one last. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  endpointsTried?: string[];

  /** Each provider call's HTTP status, in the order of `endpointsTried` (0: no status, a connect error or a timeout). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsInt({ each: true })
  @Min(0, { each: true })
  attemptStatuses?: number[];

  /** Each provider call's milliseconds to its answer (its first byte, streamed) or failure, in the same order. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsInt({ each: true })
  @Min(0, { each: true })
  attemptLatenciesMs?: number[];

  /** Detail counts beyond the columns above, only those the provider reported (absent on older replicas). */
  @IsOptional()
  @ValidateNested()
  @Type(() => UsageDetails)
  usageDetails?: UsageDetails;

  /** The spend reservation this generation settles: management takes its cost off the hold. */
  @IsOptional()
  @IsUUID()
  reservationId?: string;

  /** True when the client asked for the answer as a stream (SSE); false otherwise. */
  @IsOptional()
  @IsBoolean()
  streamed?: boolean;

  /** The answer's finish reason (`stop`, `length`, `tool_calls`, `content_filter`, `error`): absent when unknown. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  finishReason?: string;

  /** The provider's own finish reason (Anthropic's `end_turn`, Gemini's `STOP`, ...). */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  nativeFinishReason?: string;

  /** The provider's id of its response. */
  @IsOptional()
  @IsString()
  @MaxLength(256)
  upstreamId?: string;

  /** Milliseconds of the answering provider call. */
  @IsOptional()
  @IsInt()
  @Min(0)
  generationTimeMs?: number;

  /** The service tier the provider answered with. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  serviceTier?: string;

  /** True when the client went away before the end (a cut stream). */
  @IsOptional()
  @IsBoolean()
  cancelled?: boolean;

  /** The gateway's request id of the generation (`x-request-id`): consumers log with it. */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  requestId?: string;

  /**
   * W3C trace context of the generation's usage publish span, set only while tracing is on:
   * a consumer's span continues that trace. In the body because one message may carry many
   * events of as many traces; a message of one event carries it as a header too.
   */
  @IsOptional()
  @Matches(TRACEPARENT_PATTERN)
  traceparent?: string;

  /**
   * Answered from the response cache: no provider call; `cost` is the cache
   * price, `costAvoided` what the stored answer's generations charged.
   */
  @IsOptional()
  @IsBoolean()
  cacheHit?: boolean;

  @IsOptional()
  @Matches(DECIMAL_STRING)
  costAvoided?: string;

  /** On a cache hit, the generation whose stored answer it replayed. */
  @IsOptional()
  @IsString()
  @MaxLength(128)
  responseCacheSourceId?: string;

  /** What provider prompt caching took off the catalog price (cache reads less the extra of cache writes); may be negative. */
  @IsOptional()
  @Matches(SIGNED_DECIMAL_STRING)
  cacheDiscount?: string;

  /** The preset the request named (its id), when it named one. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  presetId?: string;

  /** The router that chose the model (`openrouter/auto`), when one did. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  router?: string;

  /** Images, files and videos in the request's messages; audio inputs apart. */
  @IsOptional()
  @IsInt()
  @Min(0)
  numMediaPrompt?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  numInputAudioPrompt?: number;

  /** Milliseconds the moderation plugin took on the input, when it ran. */
  @IsOptional()
  @IsInt()
  @Min(0)
  moderationLatencyMs?: number;

  /** Search results the web plugin put in the prompt, and the engine that found them. */
  @IsOptional()
  @IsInt()
  @Min(0)
  numSearchResults?: number;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  webSearchEngine?: string;

  /** Pages the web-fetch plugin read into the prompt. */
  @IsOptional()
  @IsInt()
  @Min(0)
  numFetches?: number;

  /** The request body's `user`: the caller's own id of its end user (cut to 256 characters). */
  @IsOptional()
  @IsString()
  @MaxLength(256)
  externalUser?: string;

  /**
   * The gateway's proof that this workspace and key may be billed for this request: the signed
   * principal (`Gw-Principal`) of the request that made the generation, bound to `requestId`, or
   * the batch's grant on a batch's line or charge. Consumers that bill refuse an event without a
   * matching one. Not a secret that opens anything: it is checked, never stored.
   */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  principal?: string;
}

/**
 * Several generations' events in one message on the same subject: what the publisher sends when
 * events queue up (one stored message, one delivery and one ack per consumer instead of one per
 * generation). Consumers treat each event as if it had come alone. Events are validated one by
 * one on receipt (libs/messaging `parseUsageEvents`), so no decorators here.
 */
export interface UsageRecordedBatch {
  events: UsageRecordedEvent[];
}
