import type { GatewayError } from './gateway-error.js';

/** The error envelope of spec §7.1: `code` always equals the HTTP status. */
export interface ErrorEnvelope {
  error: {
    code: number;
    message: string;
    metadata?: Record<string, unknown>;
  };
}

/**
 * The canonical `error_type` rides in `metadata`, next to any details the service added,
 * because the envelope itself has only code, message and metadata.
 */
export function toEnvelope(error: GatewayError): ErrorEnvelope {
  return {
    error: {
      code: error.status,
      message: error.message,
      metadata: { error_type: error.errorType, ...error.metadata },
    },
  };
}
