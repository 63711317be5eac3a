import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

const chatBody = { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

describe('authentication at the gateway', () => {
  it.each([
    ['GET', '/keys'],
    ['GET', '/models'],
    ['POST', '/chat/completions'],
  ])('%s %s without a key is 401 with the envelope', async (method, path) => {
    const result = await call(path, { method, key: null, body: method === 'POST' ? chatBody : undefined });
    expect(result.status).toBe(401);
    expect(envelopeOf(result).metadata?.error_type).toBe('authentication');
  });

  it('refuses a malformed Authorization header', async () => {
    const result = await call('/models', { key: null, headers: { authorization: `Basic ${stack.apiKey}` } });
    expect(result.status).toBe(401);
    expect(envelopeOf(result).message).toMatch(/Malformed/);
  });

  it('refuses an unknown key', async () => {
    const result = await call('/models', { key: `sk-gw-v1-${'0'.repeat(64)}` });
    expect(result.status).toBe(401);
    expect(envelopeOf(result).message).toBe('Invalid API key');
  });

  it('does not accept a management key for inference', async () => {
    const result = await call('/chat/completions', { key: stack.managementKey, body: chatBody });
    expect(result.status).toBe(403);
    expect(envelopeOf(result).metadata?.error_type).toBe('permission_denied');
  });

  it('serves liveness, readiness and the health of the services without a key', async () => {
    const base = stack.baseUrl.replace(/\/v1$/, '');
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok' });
    const services = await fetch(`${base}/health/services`);
    expect(services.status).toBe(200);
    expect(await services.json()).toEqual({
      status: 'ok',
      services: { management: 'ok', inference: 'ok', batch: 'ok', internSigning: 'ok' },
    });
  });

  it('answers unknown routes with a 404 envelope', async () => {
    const result = await call('/no-such-thing');
    expect(result.status).toBe(404);
    envelopeOf(result);
  });
});

describe('secrets in logs', () => {
  it('never writes an API key secret to any service log', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    // Make sure something was logged around authenticated traffic, failed calls included.
    await call('/chat/completions', { body: { model: 'nope/none', messages: [{ role: 'user', content: 'x' }] } });
    await call('/keys', { key: stack.managementKey });
    const logs = readdirSync(stack.logDir).map((file) => readFileSync(join(stack.logDir, file), 'utf8'));
    expect(logs.length).toBeGreaterThanOrEqual(6);
    for (const log of logs) {
      expect(log).not.toContain(stack.apiKey);
      expect(log).not.toContain(stack.managementKey);
    }
  });
});
