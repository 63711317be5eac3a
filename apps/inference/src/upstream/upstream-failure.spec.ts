import { describe, expect, it } from 'vitest';
import { httpFailure, transportFailure } from './upstream-failure.js';

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
});
