import { errorTypeForStatus, isErrorType, type ErrorType } from './error-types.js';
import { GatewayError, type ErrorMetadata } from './gateway-error.js';
import { databaseUnavailable, isDatabaseUnavailable } from './database-unavailable.js';

/** How an error travels between services over NATS. */
export interface RpcErrorPayload {
  status: number;
  message: string;
  error_type: ErrorType;
  metadata?: ErrorMetadata;
}

export function isRpcErrorPayload(value: unknown): value is RpcErrorPayload {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<RpcErrorPayload>;
  return (
    typeof candidate.status === 'number' &&
    candidate.status >= 400 &&
    candidate.status <= 599 &&
    typeof candidate.message === 'string' &&
    isErrorType(candidate.error_type)
  );
}

/**
 * Turns anything thrown inside a service into the wire shape. Unknown errors become a
 * generic 500 so internals (stack traces, SQL, secrets in messages) never leave the service;
 * a database that cannot be reached is the retryable 503 `database_unavailable` instead.
 */
export function toRpcError(error: unknown): RpcErrorPayload {
  if (error instanceof GatewayError) {
    return {
      status: error.status,
      message: error.message,
      error_type: error.errorType,
      ...(error.metadata ? { metadata: error.metadata } : {}),
    };
  }
  if (isRpcErrorPayload(error)) return error;
  if (isDatabaseUnavailable(error)) return toRpcError(databaseUnavailable());
  return { status: 500, message: 'Internal server error', error_type: 'server' };
}

export function fromRpcError(payload: RpcErrorPayload): GatewayError {
  return new GatewayError(payload.status, payload.message, {
    errorType: isErrorType(payload.error_type) ? payload.error_type : errorTypeForStatus(payload.status),
    metadata: payload.metadata,
  });
}
