import { GatewayError } from '@gw/errors';

/** Spec §7.1/§7.2: on intern operations metadata carries `reason` and `retryable`. */
const REASONS: Record<number, string> = {
  400: 'invalid_body',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  408: 'timeout',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  421: 'regional_host',
  429: 'rate_limited',
  500: 'internal_error',
};

/**
 * The error of an intern route in the spec's terms: every error has a reason and whether a
 * retry may succeed; an internal call that timed out (504) is the operation's 408 `timeout`,
 * and any other failure behind the gateway (bus down, no replica) is a retryable 500
 * `internal_error` — the statuses §7.2 lists for the sign operation.
 */
export function internErrorShape(error: GatewayError): GatewayError {
  let { status } = error;
  let metadata = { ...error.metadata };
  if (status === 504) {
    status = 408;
    metadata = { reason: 'timeout', retryable: true };
  } else if (status >= 500 && status !== 500) {
    status = 500;
    metadata = { reason: 'internal_error', retryable: true };
  }
  const reason =
    typeof metadata.reason === 'string' ? metadata.reason : (REASONS[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request'));
  const retryable = typeof metadata.retryable === 'boolean' ? metadata.retryable : status === 408 || status === 429 || status >= 500;
  if (status === error.status && metadata.reason === reason && metadata.retryable === retryable) return error;
  const errorType = status === error.status ? error.errorType : undefined;
  return new GatewayError(
    status,
    status === error.status ? error.message : status === 408 ? 'The operation timed out' : 'Internal server error',
    {
      ...(errorType ? { errorType } : {}),
      metadata: { ...metadata, reason, retryable },
    },
  );
}
