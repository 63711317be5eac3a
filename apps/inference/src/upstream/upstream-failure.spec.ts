import { describe, expect, it } from 'vitest';
import { httpFailure, MAX_RETRY_AFTER_MS, parseRetryAfter, transportFailure } from './upstream-failure.js';

describe('provider failures', () => {
  it.each([
    [400, undefined, 400, 'invalid_request', false],
    [400, 'context_length_exceeded', 400, 'context_length_exceeded', false],
    [401, undefined, 502, 'provider_unavailable', false],
    [413, undefined, 413, 'payload_too_large', false],
    [429, 'rate_limit_exceeded', 429, 'rate_limit_exceeded', true],
    [500, undefined, 502, 'provider_unavailable', true],
    [503, undefined, 503, 'provider_unavailable', true],
    [504, undefined, 504, 'timeout', true],
    [529, undefined, 503, 'provider_overloaded', true],
  ])('upstream %i (%s) -> %i %s, retryable %s', (upstream, code, status, errorType, retryable) => {
    const failure = httpFailure('sim', upstream, 'provider says no', code);
    expect(failure.gatewayError.status).toBe(status);
    expect(failure.gatewayError.errorType).toBe(errorType);
    expect(failure.retryable).toBe(retryable);
  });

  it('passes a client error message on, but not a server error message', () => {
    expect(httpFailure('sim', 400, 'max_tokens is too large').gatewayError.message).toBe('max_tokens is too large');
    expect(httpFailure('sim', 500, 'stack trace at line 3').gatewayError.message).toBe('Provider sim answered 500');
  });

  it('retries connect errors and timeouts, never a cancelled call', () => {
    expect(transportFailure('sim', 'connect', 'x').retryable).toBe(true);
    expect(transportFailure('sim', 'timeout', 'x').gatewayError.status).toBe(504);
    expect(transportFailure('sim', 'aborted', 'x').retryable).toBe(false);
  });

  it("reads retry-after as seconds, an HTTP date or OpenAI's retry-after-ms, capped", () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfter({ 'retry-after': '12' }, now)).toBe(12_000);
    expect(parseRetryAfter({ 'retry-after': 'Mon, 23 Nov 2026 10:00:30 GMT' }, now)).toBe(30_000);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '1' }, now)).toBe(250);
    expect(parseRetryAfter({ 'retry-after': '999999' }, now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
  });

  it("carries the provider's wait to the client on 429 and 503 only", () => {
    expect(httpFailure('p', 429, undefined, undefined, 2_500).gatewayError.metadata).toMatchObject({ retry_after: 3 });
    expect(httpFailure('p', 503, undefined, undefined, 60_000).gatewayError.metadata).toMatchObject({ retry_after: 60 });
    expect(httpFailure('p', 400, 'bad', undefined, 60_000).gatewayError.metadata).not.toHaveProperty('retry_after');
  });
});
