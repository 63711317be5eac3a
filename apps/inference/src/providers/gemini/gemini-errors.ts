import type { UpstreamErrorDetail } from '../../upstream/upstream-client.js';
import { streamErrorFailure, type UpstreamFailure } from '../../upstream/upstream-failure.js';

/** Google's error body: `{error: {code, message, status, details: [{@type, reason, retryDelay, ...}]}}`. */
export interface GoogleErrorBody {
  error?: { code?: unknown; message?: unknown; status?: unknown; details?: unknown };
}

/** Google's canonical statuses that name a gateway error type by themselves. */
const STATUS_CODES: Record<string, string> = {
  RESOURCE_EXHAUSTED: 'rate_limit_exceeded',
  DEADLINE_EXCEEDED: 'timeout',
};

/** Gemini says a prompt is too long in words only: "The input token count (N) exceeds the maximum number of tokens allowed (M)." */
const CONTEXT_WORDS = /input token count .*exceeds the maximum|exceeds the maximum number of tokens/i;
const OVERLOADED_WORDS = /overloaded/i;

interface ErrorDetail {
  '@type'?: unknown;
  reason?: unknown;
  retryDelay?: unknown;
}

function details(body: GoogleErrorBody | undefined): ErrorDetail[] {
  const list = body?.error?.details;
  return Array.isArray(list) ? (list.filter((d) => d !== null && typeof d === 'object') as ErrorDetail[]) : [];
}

/** RetryInfo's `retryDelay` ("37s", "1.5s") in ms: what Google sends instead of a Retry-After header. */
function retryInfoMs(body: unknown): number | undefined {
  const info = details(body as GoogleErrorBody).find((d) => String(d['@type']).endsWith('google.rpc.RetryInfo'));
  const match = typeof info?.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay) : null;
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

/**
 * What a Google error body says, as the gateway maps it. An invalid API key is a 400 with
 * reason API_KEY_INVALID: it is the gateway's credential, so it fails as a refused credential
 * (401) does, not as the caller's bad request. A too-long prompt and an overloaded model are
 * told by their words; the wait comes from RetryInfo when no Retry-After header says it.
 */
export function googleErrorDetail(body: unknown): UpstreamErrorDetail {
  const error = (body as GoogleErrorBody | undefined)?.error;
  const message = typeof error?.message === 'string' ? error.message : undefined;
  const googleStatus = typeof error?.status === 'string' ? error.status : undefined;
  let code = googleStatus ? STATUS_CODES[googleStatus] : undefined;
  if (googleStatus === 'INVALID_ARGUMENT' && message && CONTEXT_WORDS.test(message)) code = 'context_length_exceeded';
  if (googleStatus === 'UNAVAILABLE' && message && OVERLOADED_WORDS.test(message)) code = 'overloaded_error';
  const detail: UpstreamErrorDetail = { message, code, retryAfterMs: retryInfoMs(body) };
  if (details(body as GoogleErrorBody).some((d) => d.reason === 'API_KEY_INVALID')) detail.status = 401;
  return detail;
}

/** An `{error}` frame inside a stream, with Google's status named as the gateway's stream error types. */
export function googleStreamFailure(provider: string, error: GoogleErrorBody['error']): UpstreamFailure {
  const status = typeof error?.status === 'string' ? error.status : undefined;
  const message = typeof error?.message === 'string' ? error.message : undefined;
  let code = status ? STATUS_CODES[status] : undefined;
  if (status === 'UNAVAILABLE' && message && OVERLOADED_WORDS.test(message)) code = 'overloaded_error';
  if (status === 'INVALID_ARGUMENT' && message && CONTEXT_WORDS.test(message)) code = 'context_length_exceeded';
  return streamErrorFailure(provider, { message, code, type: status });
}
