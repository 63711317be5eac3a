import { errorTypeForStatus, type ErrorType } from './error-types.js';

export type ErrorMetadata = Record<string, unknown>;

/**
 * The one error type business code throws. It carries everything the HTTP edge needs to
 * render the spec's envelope, and it crosses NATS unchanged as an {@link RpcErrorPayload}.
 */
export class GatewayError extends Error {
  readonly status: number;
  readonly errorType: ErrorType;
  readonly metadata?: ErrorMetadata;

  constructor(status: number, message: string, options: { errorType?: ErrorType; metadata?: ErrorMetadata } = {}) {
    super(message);
    this.name = 'GatewayError';
    this.status = status;
    this.errorType = options.errorType ?? errorTypeForStatus(status);
    this.metadata = options.metadata;
  }

  static badRequest(message: string, metadata?: ErrorMetadata): GatewayError {
    return new GatewayError(400, message, { metadata });
  }

  static unauthorized(message = 'Missing or invalid API key'): GatewayError {
    return new GatewayError(401, message);
  }

  static forbidden(message: string, metadata?: ErrorMetadata): GatewayError {
    return new GatewayError(403, message, { metadata });
  }

  static notFound(message: string): GatewayError {
    return new GatewayError(404, message);
  }
}
