import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { Principal } from '../principal.js';

/*
 * Batch -> inference: running a batch natively at a provider's batch API (OpenAI's Batch API
 * over its Files API, Anthropic's Message Batches), issue 13 "Execution".
 *
 * The batch service owns the batch (storage, statuses, the 24 h window, retention, billing);
 * inference owns everything provider-specific (which endpoint, which credential, the wire
 * formats, translation of bodies both ways, prices). The batch service keeps the opaque
 * `handle` inference returns at submit and sends it back on status / cancel / delete.
 *
 * Billing: inference computes each line's usage and cost at the endpoint's batch price but
 * charges nothing and publishes no `events.usage.recorded` for native lines: the batch
 * service charges the batch once at finalization (its cost guard, spec §3.1), using the
 * line's `usage` below (decimal strings, exact), with `generation_id` as the idempotency key.
 *
 * Errors are the usual RPC error envelope (libs/errors): 402 `payment_required` (spend-blocked
 * principal, submit only), 400 (a line whose body a provider batch cannot carry), 404 (an
 * unknown model), 502 `upstream_error` when the provider's batch or file API fails or times out
 * (the batch service answers 502 to its client, spec §4.1), 503 when the bus is down.
 */

/** The four endpoints a batch may target (issue 13). */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/embeddings'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** Most lines in one native submit; providers cap a batch at 50,000 (OpenAI) / 100,000 (Anthropic). */
export const NATIVE_BATCH_MAX_LINES = 50_000;
/** `custom_id` as both providers accept it: 1-64 characters of `[A-Za-z0-9_-]`. */
export const NATIVE_BATCH_CUSTOM_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class NativeBatchProviderPreferences {
  /** Provider ids (catalog slugs) the batch may run on. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  only?: string[];

  @IsOptional()
  @IsBoolean()
  allow_fallbacks?: boolean;
}

export class NativeBatchLine {
  /**
   * Unique within the batch. The batch service validates it; a `custom_id` a provider's batch
   * API would refuse (see NATIVE_BATCH_CUSTOM_ID) makes submit answer `{native: false}`.
   */
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  custom_id!: string;

  /** The line's body exactly as the live endpoint takes it (validated by the batch service), `model` may be absent. */
  @IsObject()
  body!: Record<string, unknown>;
}

/** `inference.batches.native.submit`. Large payloads go through the object store. */
export class NativeBatchSubmitRequest {
  /** The principal that created the batch (the batch service stored it at POST /v1/batches). */
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsString()
  @MinLength(1)
  @MaxLength(128)
  batchId!: string;

  @IsIn(BATCH_ENDPOINTS)
  endpoint!: BatchEndpoint;

  /** The batch's public model id (catalog id). */
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  model!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => NativeBatchProviderPreferences)
  provider?: NativeBatchProviderPreferences;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(NATIVE_BATCH_MAX_LINES)
  @ValidateNested({ each: true })
  @Type(() => NativeBatchLine)
  lines!: NativeBatchLine[];
}

/**
 * What the batch service stores and sends back: opaque to it (no secrets inside: a BYOK
 * credential is named by id and looked up again on every call). Inference validates it.
 */
export interface NativeBatchHandle {
  /** Version of this shape, so an older handle stays readable after an upgrade. */
  v: 1;
  /** `openai` (Batch API + Files API) or `anthropic` (Message Batches). */
  api: 'openai' | 'anthropic';
  /** Catalog provider id, e.g. `simulator-openai`. */
  provider: string;
  /** Catalog endpoint id (provider/upstream model). */
  endpointId: string;
  /** Public model id, and the upstream model the lines were sent with. */
  model: string;
  upstreamModel: string;
  endpoint: BatchEndpoint;
  batchId: string;
  /** The workspace that submitted it: a handle sent with another workspace's principal is refused (404). */
  workspaceId: string;
  /** The provider's batch id (`batch_...` / `msgbatch_...`). */
  upstreamBatchId: string;
  /** OpenAI: the uploaded JSONL input file. Output and error files are found on status. */
  inputFileId?: string;
  /** Submitted with the workspace's own key; `byokCredentialId` names it. */
  isByok: boolean;
  byokCredentialId?: string;
  /** Unix seconds. */
  submittedAt: number;
  /** Per-line translation options the provider does not echo back (only lines that have any), by custom_id. */
  lineOptions?: Record<string, { excludeReasoning?: boolean }>;
}

/** `Handle`: the caller sends the `NativeBatchHandle` it was given; inference reads a record and checks it. */
export class NativeBatchHandleRequest<Handle extends object = Record<string, unknown>> {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsObject()
  handle!: Handle;
}

/** `inference.batches.native.status`: poll it with backoff (inference calls the provider each time). */
export class NativeBatchStatusRequest<Handle extends object = Record<string, unknown>> extends NativeBatchHandleRequest<Handle> {}
/** `inference.batches.native.cancel`: asks the provider to stop; poll status until `cancelled`. */
export class NativeBatchCancelRequest<Handle extends object = Record<string, unknown>> extends NativeBatchHandleRequest<Handle> {}
/** `inference.batches.native.delete`: removes the provider's batch and its files (input, output, error). */
export class NativeBatchDeleteRequest<Handle extends object = Record<string, unknown>> extends NativeBatchHandleRequest<Handle> {}

export type NativeBatchSubmitReply =
  /** No endpoint the batch may use supports a provider batch API: the batch service runs the lines itself. */
  { native: false; reason: string } | { native: true; handle: NativeBatchHandle };

/**
 * - `in_progress`: the provider is validating or running it (OpenAI's validating, in_progress,
 *   finalizing; Anthropic's in_progress).
 * - `ended`: every line has a result. `cancelled` / `expired`: ended early; lines that ran have
 *   their results, lines that never ran come back with error `batch_cancelled` / `batch_expired`.
 * - `failed`: the provider refused the whole batch (OpenAI's validation failure): no results, `error`.
 * - `cancelling`: cancel asked, the provider is still stopping.
 */
export const NATIVE_BATCH_STATES = ['in_progress', 'ended', 'failed', 'cancelling', 'cancelled', 'expired'] as const;
export type NativeBatchState = (typeof NATIVE_BATCH_STATES)[number];

/** A line's usage and cost at the endpoint's batch price. Money as decimal strings (exact). */
export interface NativeBatchLineUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  /** Credits the workspace owes for the line: the batch price, or only the BYOK fee on BYOK. */
  cost: string;
  /** What the provider charges at its batch price (on BYOK paid by the workspace's own key). */
  upstream_cost: string;
  upstream_prompt_cost: string;
  upstream_completion_cost: string;
  is_byok: boolean;
}

/** Spec §2.1.1's error object, ready to copy into the result item. */
export interface NativeBatchLineError {
  type: string;
  message: string;
  param: string | null;
  /** Canonical error type (spec §7.3) when one applies. */
  error_type?: string;
}

export interface NativeBatchLineResult {
  custom_id: string;
  /** True when the line produced a response body (`status_code` 200). */
  ok: boolean;
  /** The provider's HTTP status for the line; null for a line that never ran. */
  status_code: number | null;
  /** The provider's request id for the line, when it gave one. */
  request_id: string | null;
  /**
   * The gateway's own response for the endpoint, exactly what the live endpoint would answer:
   * `chat.completion` (ChatCompletionView), Responses result (ResponsesResponseView), Anthropic
   * message (MessageView) or embeddings list (EmbeddingsView), with `usage.cost` at the batch
   * price. Null when `ok` is false.
   */
  body: object | null;
  error: NativeBatchLineError | null;
  /** Zero tokens and cost for a line that failed or never ran. */
  usage: NativeBatchLineUsage;
  /** Deterministic from batchId + custom_id (`gen-batch-...`): the same on every poll. Also the body's `id` where the shape has one. */
  generation_id: string;
  /** Catalog provider id and upstream model that served the line. */
  provider: string;
  upstream_model: string;
}

export interface NativeBatchStatusReply {
  state: NativeBatchState;
  /** The provider's counts: completed = lines answered 2xx, failed = errored, expired or cancelled. */
  counts: { total: number; completed: number; failed: number };
  /** Present when `state` is `failed`: the provider's reason. */
  error?: { message: string };
  /** Present once the state is `ended`, `cancelled` or `expired`: one per line, in submit order when the provider keeps it. */
  results?: NativeBatchLineResult[];
}

export interface NativeBatchCancelReply {
  state: NativeBatchState;
}

export interface NativeBatchDeleteReply {
  /** `deleted`: the provider's batch (if it allows) and every file are gone; `already_deleted` when nothing was left. */
  status: 'deleted' | 'already_deleted';
  provider: string;
}
