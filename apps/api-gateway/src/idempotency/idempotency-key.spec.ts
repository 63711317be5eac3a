import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { idempotencyOf } from './idempotency-key.js';

describe('idempotencyOf', () => {
  const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

  it('is undefined without the header', () => {
    expect(idempotencyOf({}, 'chat', body)).toBeUndefined();
  });

  it('keeps digests only: the same key and request give the same reference, never the raw key', () => {
    const first = idempotencyOf({ 'idempotency-key': 'retry-1' }, 'chat', body)!;
    expect(first).toEqual(idempotencyOf({ 'idempotency-key': 'retry-1' }, 'chat', structuredClone(body)));
    expect(first.key).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(first)).not.toContain('retry-1');
  });

  it('fingerprints the route and the body: another of either is another request', () => {
    const first = idempotencyOf({ 'idempotency-key': 'k' }, 'chat', body)!;
    expect(idempotencyOf({ 'idempotency-key': 'k' }, 'responses', body)!.fingerprint).not.toBe(first.fingerprint);
    expect(idempotencyOf({ 'idempotency-key': 'k' }, 'chat', { ...body, stream: true })!.fingerprint).not.toBe(first.fingerprint);
    expect(idempotencyOf({ 'idempotency-key': 'k' }, 'chat', body)!.key).toBe(first.key);
  });

  it.each([[''], ['x'.repeat(256)], ['caf\u00e9'], [['a', 'b']]])('refuses a malformed header (%j) with a 400', (header) => {
    let caught: unknown;
    try {
      idempotencyOf({ 'idempotency-key': header as string }, 'chat', body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect(caught).toMatchObject({ status: 400, metadata: { reason: 'invalid_idempotency_key' } });
  });
});
