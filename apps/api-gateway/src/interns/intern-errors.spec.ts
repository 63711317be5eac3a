import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { internErrorShape } from './intern-errors.js';
import { compileHostPatterns, isInternRoute, isSignRoute } from './intern-routes.js';

describe('intern route errors (spec §7.2)', () => {
  it('gives every error a reason and retryable, keeping the ones a service chose', () => {
    expect(internErrorShape(GatewayError.unauthorized()).metadata).toEqual({ reason: 'unauthorized', retryable: false });
    expect(internErrorShape(new GatewayError(413, 'too large')).metadata).toEqual({ reason: 'payload_too_large', retryable: false });
    expect(internErrorShape(new GatewayError(429, 'slow down')).metadata).toEqual({ reason: 'rate_limited', retryable: true });
    const chosen = new GatewayError(403, 'no identity', { metadata: { reason: 'personal_identity_required', retryable: false } });
    expect(internErrorShape(chosen)).toBe(chosen);
  });

  it('turns an internal timeout into 408 timeout and any other failure behind the gateway into a retryable 500', () => {
    const timeout = internErrorShape(new GatewayError(504, 'Internal request timed out after 9000 ms'));
    expect([timeout.status, timeout.errorType, timeout.metadata]).toEqual([408, 'timeout', { reason: 'timeout', retryable: true }]);
    const busDown = internErrorShape(new GatewayError(503, 'Message bus unavailable'));
    expect([busDown.status, busDown.message, busDown.metadata]).toEqual([
      500,
      'Internal server error',
      { reason: 'internal_error', retryable: true },
    ]);
    expect(internErrorShape(new GatewayError(500, 'Internal server error', { metadata: { error_id: 'e1' } })).metadata).toEqual({
      error_id: 'e1',
      reason: 'internal_error',
      retryable: true,
    });
  });

  it('matches regional host patterns and the intern routes', () => {
    const patterns = compileHostPatterns('eu.*, *.us.example.com');
    expect(patterns.some((pattern) => pattern.test('eu.gateway.example'))).toBe(true);
    expect(patterns.some((pattern) => pattern.test('api.us.example.com'))).toBe(true);
    expect(patterns.some((pattern) => pattern.test('gateway.example'))).toBe(false);
    expect(patterns.some((pattern) => pattern.test('europe.gateway.example'))).toBe(false);
    expect(isInternRoute('/v1/interns')).toBe(true);
    expect(isInternRoute('/v1/interns?limit=2')).toBe(true);
    expect(isInternRoute('/v1/internsx')).toBe(false);
    expect(isSignRoute('/v1/interns/abc/daemon/sign')).toBe(true);
    expect(isSignRoute('/v1/interns/abc/daemon-access/sign')).toBe(true);
    expect(isSignRoute('/v1/interns/abc')).toBe(false);
  });
});
