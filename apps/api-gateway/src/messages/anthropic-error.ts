import { toEnvelope, type ErrorEnvelope, type GatewayError } from '@gw/errors';

/** Anthropic's error types by status, so its clients can tell errors apart (`APIError.type`). */
const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  504: 'timeout_error',
};

/** An error on `/v1/messages`: the gateway's envelope, plus Anthropic's `type: "error"` and `error.type`. */
export type MessagesErrorBody = ErrorEnvelope & { type: 'error'; error: ErrorEnvelope['error'] & { type: string } };

/**
 * The spec §7.1 envelope (code, message, metadata.error_type) with Anthropic's two type
 * fields beside it: `@anthropic-ai/sdk` raises its status class (BadRequestError, ...) from
 * the HTTP status whatever the body, reads `error.message` as `apiMessage` and `error.type`
 * as `type`; on a stream it raises on `event: error` with this body.
 */
export function messagesErrorBody(envelope: ErrorEnvelope): MessagesErrorBody {
  const type = ANTHROPIC_ERROR_TYPES[envelope.error.code] ?? (envelope.error.code >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { ...envelope.error, type } };
}

export function messagesErrorBodyOf(failure: GatewayError): MessagesErrorBody {
  return messagesErrorBody(toEnvelope(failure));
}

/** True for the routes that answer in Anthropic's format. */
export function isMessagesRoute(url: string | undefined): boolean {
  return url !== undefined && /^\/v1\/messages(\?|\/|$)/.test(url);
}
