import { GatewayError } from '@gw/errors';
import { principalFixture } from '@gw/testing';
import { validRequestFailedEvent } from '@gw/usage';
import { describe, expect, it } from 'vitest';
import { failureEventOf, type FailedRequest } from './failure-event.js';

const principal = principalFixture('a'.repeat(64));
const FAILURE_ID = '33333333-3333-4333-8333-333333333333';
const NOW = new Date('2026-11-29T01:02:03.456Z');
const chat = (overrides: Partial<FailedRequest> = {}): FailedRequest => ({
  method: 'POST',
  url: '/v1/chat/completions',
  id: 'req-1',
  principal,
  body: { model: 'sim/gpt-4o-mini', messages: [] },
  ...overrides,
});

describe('failureEventOf', () => {
  it('records the principal, the canonical type, the status and the model of a front door failure', () => {
    const event = failureEventOf(chat(), new GatewayError(429, 'Slow down', { errorType: 'rate_limit_exceeded' }), FAILURE_ID, NOW);
    expect(event).toEqual({
      failureId: FAILURE_ID,
      requestId: 'req-1',
      workspaceId: principal.workspaceId,
      keyHash: principal.keyHash,
      userId: principal.userId,
      model: 'sim/gpt-4o-mini',
      errorType: 'rate_limit_exceeded',
      status: 429,
      createdAt: '2026-11-29T01:02:03.456Z',
    });
    // What the gateway publishes is what inference's consumer accepts.
    expect(validRequestFailedEvent(JSON.parse(JSON.stringify(event)))).toEqual(event);
  });

  it('counts the gateway’s own 5xx, without a model when the body named none', () => {
    const event = failureEventOf(
      chat({ url: '/v1/responses?x=1', body: undefined }),
      new GatewayError(500, 'Internal server error'),
      FAILURE_ID,
      NOW,
    );
    expect(event?.errorType).toBe('server');
    expect(event?.status).toBe(500);
    expect(event).not.toHaveProperty('model');
  });

  it('reads a Gemini door’s model from its path, and knows every front door', () => {
    const gemini = chat({ url: '/v1beta/models/sim%2Fgemini:streamGenerateContent?alt=sse', body: {} });
    expect(failureEventOf(gemini, GatewayError.badRequest('x'), FAILURE_ID, NOW)?.model).toBe('sim/gemini');
    for (const url of ['/v1/messages', '/v1/embeddings', '/v1/presets/p1/chat/completions', '/v1/models/m:generateContent'])
      expect(failureEventOf(chat({ url }), GatewayError.badRequest('x'), FAILURE_ID, NOW), url).toBeDefined();
  });

  it('records nothing without a tenant (401s), off the front doors, or for what is no failure', () => {
    const bad = GatewayError.badRequest('x');
    expect(failureEventOf(chat({ principal: undefined }), bad, FAILURE_ID, NOW)).toBeUndefined();
    expect(failureEventOf(chat(), GatewayError.unauthorized('Invalid API key'), FAILURE_ID, NOW)).toBeUndefined();
    for (const url of ['/v1/messages/count_tokens', '/v1/analytics/query', '/v1/keys', '/v1beta/models/m:countTokens'])
      expect(failureEventOf(chat({ url }), bad, FAILURE_ID, NOW), url).toBeUndefined();
    expect(failureEventOf(chat({ method: 'GET' }), bad, FAILURE_ID, NOW)).toBeUndefined();
  });

  it('cuts a model name past its bound, so the event stays valid', () => {
    const event = failureEventOf(chat({ body: { model: 'm'.repeat(500) } }), GatewayError.badRequest('x'), FAILURE_ID, NOW);
    expect(event?.model).toHaveLength(200);
    expect(validRequestFailedEvent(event)).not.toBeNull();
  });
});
