import { describe, expect, it } from 'vitest';
import { toEnvelope } from './envelope.js';
import { errorTypeForStatus, ERROR_TYPES } from './error-types.js';
import { GatewayError } from './gateway-error.js';
import { fromRpcError, isRpcErrorPayload, toRpcError } from './rpc-error.js';

describe('error mapping', () => {
  it('lists the 27 canonical error types of spec §7.3', () => {
    expect(ERROR_TYPES).toHaveLength(27);
    expect(new Set(ERROR_TYPES).size).toBe(27);
  });

  it('keeps status, type and metadata across the RPC boundary', () => {
    const original = new GatewayError(429, 'slow down', { errorType: 'rate_limit_exceeded', metadata: { retryable: true } });
    const wire = JSON.parse(JSON.stringify(toRpcError(original)));
    expect(isRpcErrorPayload(wire)).toBe(true);
    const back = fromRpcError(wire);
    expect(back.status).toBe(429);
    expect(back.errorType).toBe('rate_limit_exceeded');
    expect(back.metadata).toEqual({ retryable: true });
  });

  it('hides the message of an unexpected error', () => {
    const wire = toRpcError(new Error('password=hunter2 in SQL'));
    expect(wire).toEqual({ status: 500, message: 'Internal server error', error_type: 'server' });
  });

  it('rejects payloads that are not errors of the wire shape', () => {
    expect(isRpcErrorPayload({ status: 200, message: 'ok', error_type: 'server' })).toBe(false);
    expect(isRpcErrorPayload({ status: 500, message: 'x', error_type: 'nonsense' })).toBe(false);
    expect(isRpcErrorPayload('boom')).toBe(false);
  });

  it('renders the envelope with code equal to the status', () => {
    expect(toEnvelope(GatewayError.notFound('No key with that hash'))).toEqual({
      error: { code: 404, message: 'No key with that hash', metadata: { error_type: 'not_found' } },
    });
  });

  it('derives a type from a bare status', () => {
    expect(errorTypeForStatus(401)).toBe('authentication');
    expect(errorTypeForStatus(503)).toBe('provider_unavailable');
    expect(errorTypeForStatus(504)).toBe('timeout');
    expect(errorTypeForStatus(500)).toBe('server');
  });
});
