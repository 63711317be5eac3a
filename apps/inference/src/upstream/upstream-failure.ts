import { GatewayError, type ErrorType } from '@gw/errors';

export type FailureKind = 'connect' | 'timeout' | 'http' | 'protocol' | 'aborted';

/**
 * A provider call that did not produce a usable answer. `retryable` failures (429, 5xx,
 * connect errors, timeouts before the first byte) let routing try the next endpoint.
 */
export class UpstreamFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly gatewayError: GatewayError,
    readonly retryable: boolean,
    readonly upstreamStatus?: number,
  ) {
    super(gatewayError.message);
    this.name = 'UpstreamFailure';
  }
}

interface StatusMapping {
  status: number;
  errorType: ErrorType;
}

/** How a provider's HTTP status reaches the client: faithful, in the canonical types (§7.3). */
function mapStatus(upstreamStatus: number): StatusMapping {
  switch (upstreamStatus) {
    case 400:
      return { status: 400, errorType: 'invalid_request' };
    case 401:
    case 403:
      // The gateway's provider credential was refused: not the caller's fault.
      return { status: 502, errorType: 'provider_unavailable' };
    case 404:
      return { status: 502, errorType: 'provider_unavailable' };
    case 408:
    case 504:
      return { status: 504, errorType: 'timeout' };
    case 413:
      return { status: 413, errorType: 'payload_too_large' };
    case 422:
      return { status: 422, errorType: 'unprocessable' };
    case 429:
      return { status: 429, errorType: 'rate_limit_exceeded' };
    case 529:
      return { status: 503, errorType: 'provider_overloaded' };
    case 502:
    case 503:
      return { status: 503, errorType: 'provider_unavailable' };
    default:
      return upstreamStatus >= 500 ? { status: 502, errorType: 'provider_unavailable' } : { status: 400, errorType: 'invalid_request' };
  }
}

/** Provider error codes that name a more specific canonical type. */
const CODE_TYPES: Record<string, ErrorType> = {
  context_length_exceeded: 'context_length_exceeded',
  string_above_max_length: 'string_too_long',
  content_filter: 'content_policy_violation',
  content_policy_violation: 'content_policy_violation',
  invalid_image_format: 'unsupported_image_format',
  image_too_large: 'image_too_large',
};

export function httpFailure(provider: string, upstreamStatus: number, upstreamMessage: string | undefined, code?: string): UpstreamFailure {
  const mapped = mapStatus(upstreamStatus);
  const errorType = (code && CODE_TYPES[code]) || mapped.errorType;
  // Client errors carry the provider's own explanation; server-side ones say who failed.
  const message =
    mapped.status < 500 && mapped.status !== 429 && upstreamMessage
      ? upstreamMessage
      : `Provider ${provider} answered ${upstreamStatus}`;
  const retryable = upstreamStatus === 408 || upstreamStatus === 429 || upstreamStatus >= 500;
  return new UpstreamFailure(
    'http',
    new GatewayError(mapped.status, message, { errorType, metadata: { provider, upstream_status: upstreamStatus } }),
    retryable,
    upstreamStatus,
  );
}

export function transportFailure(provider: string, kind: Exclude<FailureKind, 'http'>, detail: string): UpstreamFailure {
  const status = kind === 'timeout' ? 504 : 502;
  const errorType: ErrorType = kind === 'timeout' ? 'timeout' : 'provider_unavailable';
  return new UpstreamFailure(
    kind,
    new GatewayError(status, `Provider ${provider} ${detail}`, { errorType, metadata: { provider } }),
    kind !== 'aborted',
  );
}
