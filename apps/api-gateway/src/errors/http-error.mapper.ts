import { HttpException } from '@nestjs/common';
import { GatewayError } from '@gw/errors';
import { isPrincipalRefusal } from '@gw/messaging';

/** Fastify and Nest errors that carry a status of their own (413 body too large, 415, 404 route). */
interface StatusCarrier {
  statusCode?: number;
  status?: number;
  code?: string;
  message?: string;
}

const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type: send application/json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty',
  FST_ERR_CTP_INVALID_JSON_BODY: 'Request body is not valid JSON',
};

/**
 * Normalises anything thrown while handling a request into a GatewayError. Only errors whose
 * message is meant for clients keep it; anything else is an opaque 500.
 */
export function toGatewayError(exception: unknown): GatewayError {
  // A service refused the principal this gateway signed (keys or clocks out of step): its fault, not the client's.
  if (isPrincipalRefusal(exception)) return new GatewayError(500, 'Internal server error');
  if (exception instanceof GatewayError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    const message =
      typeof response === 'object' && response !== null && 'message' in response
        ? [(response as { message: unknown }).message].flat().join('; ')
        : exception.message;
    return new GatewayError(status, status === 404 ? 'Not found' : message);
  }
  const carrier = (exception ?? {}) as StatusCarrier;
  const status = carrier.statusCode ?? carrier.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const known = carrier.code ? FASTIFY_MESSAGES[carrier.code] : undefined;
    const isJsonSyntax = exception instanceof SyntaxError;
    return new GatewayError(status, known ?? (isJsonSyntax ? 'Request body is not valid JSON' : 'Invalid request'));
  }
  return new GatewayError(500, 'Internal server error');
}
