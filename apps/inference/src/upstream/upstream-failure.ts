import { GatewayError, type ErrorType } from '@gw/errors';

export type FailureKind = 'connect' | 'timeout' | 'http' | 'protocol' | 'aborted';

/**
 * A provider call that did not produce a usable answer. `retryable` failures (429, 5xx,
 * connect errors, timeouts before the first byte) let routing try the next endpoint.
 */
export class UpstreamFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly gatewayError: GatewayError,
    readonly retryable: boolean,
    readonly upstreamStatus?: number,
    /** How long the provider asked to be left alone (its `retry-after`), if it said. */
    readonly retryAfterMs?: number,
  ) {
    super(gatewayError.message);
    this.name = 'UpstreamFailure';
  }
}

interface StatusMapping {
  status: number;
  errorType: ErrorType;
}

/** How a provider's HTTP status reaches the client: faithful, in the canonical types (§7.3). */
function mapStatus(upstreamStatus: number): StatusMapping {
  switch (upstreamStatus) {
    case 400:
      return { status: 400, errorType: 'invalid_request' };
    case 401:
    case 402:
    case 403:
      // The gateway's provider credential (or its account's balance) was refused: not the caller's fault.
      return { status: 502, errorType: 'provider_unavailable' };
    case 404:
      return { status: 502, errorType: 'provider_unavailable' };
    case 408:
    case 504:
      return { status: 504, errorType: 'timeout' };
    case 413:
      return { status: 413, errorType: 'payload_too_large' };
    case 422:
      return { status: 422, errorType: 'unprocessable' };
    case 429:
      return { status: 429, errorType: 'rate_limit_exceeded' };
    case 529:
      return { status: 503, errorType: 'provider_overloaded' };
    case 502:
    case 503:
      return { status: 503, errorType: 'provider_unavailable' };
    default:
      return upstreamStatus >= 500 ? { status: 502, errorType: 'provider_unavailable' } : { status: 400, errorType: 'invalid_request' };
  }
}

/** Provider error codes that name a more specific canonical type. */
const CODE_TYPES: Record<string, ErrorType> = {
  context_length_exceeded: 'context_length_exceeded',
  string_above_max_length: 'string_too_long',
  content_filter: 'content_policy_violation',
  content_policy_violation: 'content_policy_violation',
  invalid_image_format: 'unsupported_image_format',
  image_too_large: 'image_too_large',
  // Anthropic's error types (its body's error.type; "prompt is too long" arrives as context_length_exceeded)
  overloaded_error: 'provider_overloaded',
  rate_limit_error: 'rate_limit_exceeded',
  request_too_large: 'payload_too_large',
};

/**
 * OpenAI-compatible hosts that send no code (vLLM, llama.cpp, Ollama) still say it in words:
 * "This model's maximum context length is 4096 tokens", "prompt is too long".
 */
const CONTEXT_LENGTH_WORDS = /maximum context length|context length exceeded|context window|prompt is too long|exceeds the context/i;

/**
 * A provider's `retry-after` in milliseconds: delta seconds or an HTTP date (RFC 9110 §10.2.3),
 * or OpenAI's `retry-after-ms`. Undefined when absent or unreadable; capped so a wild value
 * cannot take an endpoint out of routing for long.
 */
export function parseRetryAfter(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const first = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const ms = first('retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.min(Number(ms), MAX_RETRY_AFTER_MS);
  const raw = first('retry-after')?.trim();
  if (!raw) return exhaustedLimitReset(headers, first);
  if (/^\d+$/.test(raw)) return Math.min(Number(raw) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(date - now, 0), MAX_RETRY_AFTER_MS);
}

/**
 * Without a retry-after, hosts that follow OpenAI's rate-limit headers say when each limit
 * resets (`x-ratelimit-reset-requests: 1s`, `-tokens: 6m0s`; Cerebras per minute and day in
 * seconds): the wait is the longest reset among the limits whose remaining count is 0.
 */
function exhaustedLimitReset(
  headers: Record<string, string | string[] | undefined>,
  first: (name: string) => string | undefined,
): number | undefined {
  let wait: number | undefined;
  for (const name of Object.keys(headers)) {
    const suffix = /^x-ratelimit-remaining-(.+)$/.exec(name.toLowerCase())?.[1];
    if (suffix === undefined || first(name)?.trim() !== '0') continue;
    const reset = durationMs(first(`x-ratelimit-reset-${suffix}`));
    if (reset !== undefined) wait = Math.max(wait ?? 0, reset);
  }
  return wait === undefined ? undefined : Math.min(wait, MAX_RETRY_AFTER_MS);
}

/** `6m0s`, `1.5s`, `120ms` (Go durations, as OpenAI and Groq write them) or plain seconds. */
function durationMs(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) return undefined;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  return Math.ceil(parts.reduce((total, [, amount, name]) => total + Number(amount) * unit[name!]!, 0));
}

/** Ten minutes: beyond that a provider's wait is an outage, which endpoint health handles. */
export const MAX_RETRY_AFTER_MS = 600_000;

export function httpFailure(
  provider: string,
  upstreamStatus: number,
  upstreamMessage: string | undefined,
  code?: string,
  retryAfterMs?: number,
): UpstreamFailure {
  const mapped = mapStatus(upstreamStatus);
  const byWords =
    upstreamStatus === 400 && upstreamMessage && CONTEXT_LENGTH_WORDS.test(upstreamMessage) ? 'context_length_exceeded' : undefined;
  const errorType = (code && CODE_TYPES[code]) || byWords || mapped.errorType;
  // Client errors carry the provider's own explanation; server-side ones say who failed.
  const message =
    mapped.status < 500 && mapped.status !== 429 && upstreamMessage ? upstreamMessage : `Provider ${provider} answered ${upstreamStatus}`;
  const retryable = upstreamStatus === 408 || upstreamStatus === 429 || upstreamStatus >= 500;
  const metadata: Record<string, unknown> = { provider, upstream_status: upstreamStatus };
  // The client learns the provider's wait (the gateway's error filter turns it into Retry-After).
  if (retryAfterMs !== undefined && (mapped.status === 429 || mapped.status === 503))
    metadata.retry_after = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new UpstreamFailure(
    'http',
    new GatewayError(mapped.status, message, { errorType, metadata }),
    retryable,
    upstreamStatus,
    retryAfterMs,
  );
}

export function transportFailure(provider: string, kind: Exclude<FailureKind, 'http'>, detail: string): UpstreamFailure {
  const status = kind === 'timeout' ? 504 : 502;
  const errorType: ErrorType = kind === 'timeout' ? 'timeout' : 'provider_unavailable';
  return new UpstreamFailure(
    kind,
    new GatewayError(status, `Provider ${provider} ${detail}`, { errorType, metadata: { provider } }),
    kind !== 'aborted',
  );
}

/**
 * The same failure once the first byte has been relayed: the answer has begun, so it can no
 * longer go to another endpoint.
 */
export function midStreamFailure(failure: UpstreamFailure): UpstreamFailure {
  return failure.retryable
    ? new UpstreamFailure(failure.kind, failure.gatewayError, false, failure.upstreamStatus, failure.retryAfterMs)
    : failure;
}

/**
 * A stream that failed before its first event has sent the client nothing, so a provider-side
 * failure (5xx-like, 429, timeout, cut) may still go to the next endpoint, even if it came
 * after the response head. Failures about the request itself (4xx) and aborts stay final.
 */
export function beforeFirstByte(failure: UpstreamFailure): UpstreamFailure {
  if (failure.retryable || failure.kind === 'aborted') return failure;
  const status = failure.gatewayError.status;
  return status >= 500 || status === 429
    ? new UpstreamFailure(failure.kind, failure.gatewayError, true, failure.upstreamStatus, failure.retryAfterMs)
    : failure;
}

/** Error types a provider names in a mid-stream error event (OpenAI `code`/`type`, Anthropic `type`). */
const STREAM_ERROR_TYPES: Record<string, StatusMapping> = {
  rate_limit_exceeded: { status: 429, errorType: 'rate_limit_exceeded' },
  rate_limit_error: { status: 429, errorType: 'rate_limit_exceeded' },
  overloaded_error: { status: 503, errorType: 'provider_overloaded' },
  context_length_exceeded: { status: 400, errorType: 'context_length_exceeded' },
  content_filter: { status: 400, errorType: 'content_policy_violation' },
  content_policy_violation: { status: 400, errorType: 'content_policy_violation' },
  timeout: { status: 504, errorType: 'timeout' },
};

/** An error event the provider sent after the stream had begun: never retryable. */
export function streamErrorFailure(
  provider: string,
  error: { message?: unknown; code?: unknown; type?: unknown } | undefined,
): UpstreamFailure {
  const names = [error?.code, error?.type].filter((name): name is string => typeof name === 'string');
  const mapped = names.map((name) => STREAM_ERROR_TYPES[name]).find(Boolean) ?? { status: 502, errorType: 'provider_unavailable' as const };
  const upstreamMessage = typeof error?.message === 'string' ? error.message : undefined;
  // As for HTTP errors: the provider's words when they are about the request, not its own fault.
  const message = mapped.status === 400 && upstreamMessage ? upstreamMessage : `Provider ${provider} reported an error mid-stream`;
  return new UpstreamFailure(
    'protocol',
    new GatewayError(mapped.status, message, { errorType: mapped.errorType, metadata: { provider, upstream_error: names[0] ?? null } }),
    false,
  );
}

/** A stream that stopped without the provider's end marker: the answer is incomplete. */
export function truncatedStreamFailure(provider: string): UpstreamFailure {
  return new UpstreamFailure(
    'protocol',
    new GatewayError(502, `Provider ${provider} ended the stream before it was complete`, {
      errorType: 'provider_unavailable',
      metadata: { provider },
    }),
    false,
  );
}

/**
 * A 2xx stream that ended without a single chunk (a `[DONE]` alone): no answer at all. Nothing
 * reached the client, so routing may still try the next endpoint.
 */
export function emptyStreamFailure(provider: string): UpstreamFailure {
  return new UpstreamFailure(
    'protocol',
    new GatewayError(502, `Provider ${provider} ended the stream without any content`, {
      errorType: 'provider_unavailable',
      metadata: { provider },
    }),
    true,
  );
}
