import { httpFailure, midStreamFailure, parseRetryAfter, transportFailure, type UpstreamFailure } from '../../upstream/upstream-failure.js';

/** Bedrock's exceptions whose HTTP status alone would map them wrongly. */
const STATUS_BY_NAME: Record<string, number> = {
  ThrottlingException: 429,
  // A 400 at Bedrock, but a quota: the caller may try again later, or elsewhere.
  ServiceQuotaExceededException: 429,
  // A 429 at Bedrock, but the model is warming up: unavailable, not the caller's rate.
  ModelNotReadyException: 503,
  ServiceUnavailableException: 503,
  ModelTimeoutException: 504,
  // 424 at Bedrock: the model itself failed, a server-side error like a 500.
  ModelErrorException: 500,
  ModelStreamErrorException: 500,
  InternalServerException: 500,
};

/** How Bedrock words a prompt that does not fit (its ValidationException has no code for it). */
const TOO_LONG = /input is too long|too many input tokens|prompt is too long|exceeds? the (model's )?(maximum )?context/i;

interface SdkError {
  name?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string> };
}

/** Errors that never reached Bedrock (or whose answer never came): connect, timeout, abort. */
function transport(provider: string, error: SdkError): UpstreamFailure | undefined {
  const name = error.name ?? '';
  const code = (error as { code?: string }).code ?? '';
  if (name === 'AbortError') return transportFailure(provider, 'aborted', 'call was cancelled');
  if (name === 'TimeoutError' || code === 'ETIMEDOUT' || /timed? ?out/i.test(error.message ?? ''))
    return transportFailure(provider, 'timeout', 'did not answer in time');
  if (/^E[A-Z]+$/.test(code)) return transportFailure(provider, 'connect', 'could not be reached');
  if (name === 'CredentialsProviderError') return transportFailure(provider, 'connect', 'has no AWS credentials configured');
  return undefined;
}

/** An SDK exception (or a transport error) as the gateway's failure, before any event reached the client. */
export function bedrockFailure(provider: string, raw: unknown): UpstreamFailure {
  const error = (raw ?? {}) as SdkError;
  const status = error.$metadata?.httpStatusCode;
  // No status, or a 2xx whose body broke off or could not be decoded: the answer never arrived whole.
  if (status === undefined || status < 300)
    return transport(provider, error) ?? transportFailure(provider, 'protocol', 'sent an answer that could not be read');
  const mapped = STATUS_BY_NAME[error.name ?? ''] ?? status;
  const code = mapped === 400 && TOO_LONG.test(error.message ?? '') ? 'context_length_exceeded' : undefined;
  const retryAfterMs = parseRetryAfter(error.$response?.headers ?? {});
  return httpFailure(provider, mapped, error.message, code, retryAfterMs);
}

/** The same once the stream has begun: an exception event, or a cut connection, is final. */
export function bedrockStreamFailure(provider: string, raw: unknown): UpstreamFailure {
  const error = (raw ?? {}) as SdkError;
  if (error.$metadata?.httpStatusCode === undefined && STATUS_BY_NAME[error.name ?? ''] !== undefined) {
    // An exception event inside the stream carries no HTTP status of its own.
    return midStreamFailure(httpFailure(provider, STATUS_BY_NAME[error.name!]!, error.message));
  }
  if (error.name === 'ValidationException' && error.$metadata?.httpStatusCode === undefined)
    return midStreamFailure(httpFailure(provider, 400, error.message));
  const failure = bedrockFailure(provider, raw);
  return midStreamFailure(failure.kind === 'protocol' ? transportFailure(provider, 'protocol', 'closed the stream mid-answer') : failure);
}
