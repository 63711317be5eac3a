/** The canonical `error_type` values of spec §7.3, stable across API formats. */
export const ERROR_TYPES = [
  'context_length_exceeded',
  'max_tokens_exceeded',
  'token_limit_exceeded',
  'string_too_long',
  'authentication',
  'permission_denied',
  'payment_required',
  'rate_limit_exceeded',
  'provider_overloaded',
  'provider_unavailable',
  'invalid_request',
  'invalid_prompt',
  'not_found',
  'precondition_failed',
  'payload_too_large',
  'unprocessable',
  'content_policy_violation',
  'refusal',
  'invalid_image',
  'image_too_large',
  'image_too_small',
  'unsupported_image_format',
  'image_not_found',
  'image_download_failed',
  'server',
  'timeout',
  'unmapped',
] as const;

export type ErrorType = (typeof ERROR_TYPES)[number];

const known = new Set<string>(ERROR_TYPES);

export function isErrorType(value: unknown): value is ErrorType {
  return typeof value === 'string' && known.has(value);
}

/** The error type a bare HTTP status implies when nothing more specific is known. */
export function errorTypeForStatus(status: number): ErrorType {
  switch (status) {
    case 400:
      return 'invalid_request';
    case 401:
      return 'authentication';
    case 402:
      return 'payment_required';
    case 403:
      return 'permission_denied';
    case 404:
    case 410:
      return 'not_found';
    case 408:
    case 504:
      return 'timeout';
    case 409:
    case 412:
      return 'precondition_failed';
    case 413:
      return 'payload_too_large';
    case 422:
      return 'unprocessable';
    case 429:
      return 'rate_limit_exceeded';
    case 502:
    case 503:
      return 'provider_unavailable';
    case 529:
      return 'provider_overloaded';
    default:
      return status >= 500 ? 'server' : status >= 400 ? 'invalid_request' : 'unmapped';
  }
}
