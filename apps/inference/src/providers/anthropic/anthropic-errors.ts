import type { UpstreamErrorDetail } from '../../upstream/upstream-client.js';

/**
 * Anthropic's error body `{type: "error", error: {type, message}}` as the detail httpFailure
 * maps: the error type is the code (overloaded_error, rate_limit_error, request_too_large, ...),
 * except that an invalid_request_error saying the prompt is too long is a context-length error,
 * which Anthropic names by message only.
 */
export function anthropicErrorDetail(body: unknown): UpstreamErrorDetail {
  const error = (body as { error?: { type?: unknown; message?: unknown } } | undefined)?.error;
  const message = typeof error?.message === 'string' ? error.message : undefined;
  let code = typeof error?.type === 'string' ? error.type : undefined;
  if (code === 'invalid_request_error' && message && /prompt is too long/i.test(message)) code = 'context_length_exceeded';
  return { message, code };
}
