import { describe, expect, it } from 'vitest';
import { httpFailure, transportFailure } from './upstream-failure.js';

/** Every way a provider fails reaches the client as a spec §7.3 error_type with a faithful status. */
describe('canonical error types of upstream failures', () => {
  it.each([
    [
      'context length by code (OpenAI)',
      400,
      'context_length_exceeded',
      "This model's maximum context length is 128000 tokens",
      400,
      'context_length_exceeded',
      false,
    ],
    [
      'context length in words only (vLLM)',
      400,
      undefined,
      "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",
      400,
      'context_length_exceeded',
      false,
    ],
    [
      'prompt too long in words (Anthropic)',
      400,
      'invalid_request_error',
      'prompt is too long: 210000 tokens > 200000 maximum',
      400,
      'context_length_exceeded',
      false,
    ],
    ['rate limit', 429, 'rate_limit_exceeded', 'Rate limit reached', 429, 'rate_limit_exceeded', true],
    [
      'rate limit (Anthropic type)',
      429,
      'rate_limit_error',
      'Number of requests has exceeded your rate limit',
      429,
      'rate_limit_exceeded',
      true,
    ],
    ['overloaded (Anthropic 529)', 529, 'overloaded_error', 'Overloaded', 503, 'provider_overloaded', true],
    ['unavailable (503)', 503, undefined, 'Service Unavailable', 503, 'provider_unavailable', true],
    ['bad gateway (502)', 502, undefined, 'Bad gateway', 503, 'provider_unavailable', true],
    ['internal error (500)', 500, 'server_error', 'oops', 502, 'provider_unavailable', true],
    ['content policy', 400, 'content_filter', 'The response was filtered', 400, 'content_policy_violation', false],
    [
      'content policy violation',
      400,
      'content_policy_violation',
      'Your request was rejected by the safety system',
      400,
      'content_policy_violation',
      false,
    ],
    ['timeout (408)', 408, undefined, 'Request timeout', 504, 'timeout', true],
    ['gateway timeout (504)', 504, undefined, 'Gateway timeout', 504, 'timeout', true],
    ['payload too large', 413, undefined, 'Request too large', 413, 'payload_too_large', false],
    ['provider account out of funds (402)', 402, undefined, 'Insufficient balance', 502, 'provider_unavailable', false],
    [
      'an ordinary bad request stays invalid_request',
      400,
      'invalid_value',
      "Invalid value for 'temperature'",
      400,
      'invalid_request',
      false,
    ],
  ])('%s: upstream %i -> %i', (_name, upstream, code, message, status, errorType, retryable) => {
    const failure = httpFailure('sim', upstream, message, code);
    expect(failure.gatewayError.status).toBe(status);
    expect(failure.gatewayError.errorType).toBe(errorType);
    expect(failure.retryable).toBe(retryable);
  });

  it('maps transport failures: connect -> 502 provider_unavailable, timeout -> 504 timeout, both retryable', () => {
    const connect = transportFailure('sim', 'connect', 'refused the connection');
    expect([connect.gatewayError.status, connect.gatewayError.errorType, connect.retryable]).toEqual([502, 'provider_unavailable', true]);
    const timeout = transportFailure('sim', 'timeout', 'did not answer in time');
    expect([timeout.gatewayError.status, timeout.gatewayError.errorType, timeout.retryable]).toEqual([504, 'timeout', true]);
  });
});
