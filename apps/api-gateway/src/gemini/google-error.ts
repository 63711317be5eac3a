import { toEnvelope, type ErrorEnvelope, type GatewayError } from '@gw/errors';

/** Google's canonical status names by HTTP status, as its APIs answer them. */
const GOOGLE_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'FAILED_PRECONDITION',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  422: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export type GoogleErrorBody = ErrorEnvelope & { error: ErrorEnvelope['error'] & { status: string } };

/**
 * The spec's envelope (code, message, metadata with error_type) with Google's `status` beside
 * them: `{"error": {"code", "message", "status", "metadata"}}`, which @google/genai reads
 * (ApiError's status and message) as it reads Google's own.
 */
export function googleErrorBody(envelope: ErrorEnvelope): GoogleErrorBody {
  const status = GOOGLE_STATUSES[envelope.error.code] ?? (envelope.error.code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
  return { error: { ...envelope.error, status } };
}

export function googleErrorBodyOf(failure: GatewayError): GoogleErrorBody {
  return googleErrorBody(toEnvelope(failure));
}

/** True for the routes that answer in Google's format: `/v1beta`, and the model methods on `/v1` (`/v1/models/{model}:{method}`). */
export function isGoogleRoute(url: string | undefined): boolean {
  return url !== undefined && (/^\/v1beta(\/|\?|$)/.test(url) || /^\/v1\/models\/[^?]+:[A-Za-z]+(\?|$)/.test(url));
}
