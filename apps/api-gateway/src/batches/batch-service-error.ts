import { GatewayError } from '@gw/errors';

/**
 * Spec §4.1: "502 batch service unavailable". A call to the batch service that found no
 * replica, whose replica went silent (503) or that timed out (504) is answered 502, retryable.
 */
export function asBatchServiceError(error: unknown): unknown {
  if (!(error instanceof GatewayError) || (error.status !== 503 && error.status !== 504)) return error;
  return new GatewayError(502, `Batch service unavailable: ${error.message}`, {
    errorType: error.errorType,
    metadata: { ...error.metadata, retryable: true },
  });
}
