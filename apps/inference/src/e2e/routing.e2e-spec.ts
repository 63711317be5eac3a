import type { ServiceMetadataView } from '@gw/contracts';
import type {} from '@gw/testing';
import OpenAI from 'openai';
import { beforeEach, describe, expect, inject, it } from 'vitest';

const stack = inject('stack');
const messages = [{ role: 'user' as const, content: 'Route this request' }];
const plain = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const withMetadata = new OpenAI({
  apiKey: stack.apiKey,
  baseURL: stack.baseUrl,
  maxRetries: 0,
  defaultHeaders: { 'x-service-metadata': 'enabled' },
});

interface Routed {
  model: string;
  provider: string;
  service_metadata?: ServiceMetadataView;
}

/** Routing extras (`models`, `provider`, `session_id`) ride along the typed body. */
async function create(client: OpenAI, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Routed> {
  const params = { messages, ...body } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
  return (await client.chat.completions.create(params, { headers })) as unknown as Routed;
}

/** The simulator forgets its fail-times counters, so the 429-once endpoint fails once again. */
async function resetSimulator(): Promise<void> {
  const response = await fetch(`${stack.simulatorUrl}/sim/reset`, { method: 'POST' });
  expect(response.ok).toBe(true);
}

describe('routing through the gateway (openai client)', () => {
  it('reports attempt 2 in service_metadata for the fallback model when opted in, and nothing when not', async () => {
    const routed = await create(withMetadata, { model: 'sim/gpt-4o-mini-fallback' });
    expect(routed.service_metadata).toMatchObject({
      attempt: 2,
      is_byok: false,
      requested: 'sim/gpt-4o-mini-fallback',
      strategy: 'default',
      endpoints: { total: 2 },
    });
    expect(routed.service_metadata!.endpoints.available.map((entry) => entry.selected)).toEqual([false, true]);
    expect(routed.service_metadata!.summary).toMatch(/failed: 503/);
    expect(typeof routed.service_metadata!.region).toBe('string');
    expect(Number.isInteger(routed.service_metadata!.generation_time)).toBe(true);

    expect(await create(plain, { model: 'sim/gpt-4o-mini-fallback' })).not.toHaveProperty('service_metadata');
    expect(await create(plain, { model: 'sim/gpt-4o-mini-fallback' }, { 'x-service-metadata': 'disabled' })).not.toHaveProperty(
      'service_metadata',
    );
    const legacy = await create(plain, { model: 'sim/gpt-4o-mini-fallback' }, { 'x-service-experimental-metadata': 'enabled' });
    expect(legacy.service_metadata?.attempt).toBe(2);
  });

  it('falls back across `models` when the first model fails', async () => {
    const routed = await create(withMetadata, { model: 'sim/unavailable', models: ['sim/gpt-4o-mini'] });
    expect(routed.model).toBe('sim/gpt-4o-mini');
    expect(routed.service_metadata).toMatchObject({ attempt: 2, requested: 'sim/unavailable', strategy: 'default+models' });
    await expect(create(plain, { model: 'sim/unavailable' })).rejects.toMatchObject({ status: 503 });
  });

  it('honours provider.only, provider.ignore, provider.order and provider.sort', async () => {
    expect((await create(plain, { model: 'sim/gpt-4o-mini-multi' })).provider).toBe('Simulator');
    expect((await create(plain, { model: 'sim/gpt-4o-mini-multi', provider: { only: ['simulator-b'] } })).provider).toBe('Simulator B');
    expect((await create(plain, { model: 'sim/gpt-4o-mini-multi', provider: { ignore: ['Simulator'] } })).provider).toBe('Simulator B');
    expect((await create(plain, { model: 'sim/gpt-4o-mini-multi', provider: { order: ['simulator-b'] } })).provider).toBe('Simulator B');
    expect((await create(plain, { model: 'sim/gpt-4o-mini-multi', provider: { sort: 'price' } })).provider).toBe('Simulator B');
    await expect(create(plain, { model: 'sim/gpt-4o-mini-multi', provider: { only: ['nobody'] } })).rejects.toMatchObject({ status: 404 });
    await expect(create(plain, { model: 'sim/gpt-4o-mini-multi', provider: { sort: 'random' } })).rejects.toMatchObject({ status: 400 });
  });

  describe('a 429, then success', () => {
    beforeEach(resetSimulator);

    it('moves to the next endpoint after a 429, and stays on the first once it recovers', async () => {
      const first = await create(withMetadata, { model: 'sim/gpt-4o-mini-flaky' });
      expect(first.provider).toBe('Simulator B');
      expect(first.service_metadata).toMatchObject({ attempt: 2 });
      expect(first.service_metadata!.summary).toMatch(/#1 .*failed: 429 rate_limit_exceeded; #2 .*succeeded/);
      const second = await create(withMetadata, { model: 'sim/gpt-4o-mini-flaky' });
      expect(second.provider).toBe('Simulator');
      expect(second.service_metadata?.attempt).toBe(1);
    });

    it('keeps a session (x-session-id) on the endpoint it last succeeded on', async () => {
      const session = { 'x-session-id': `e2e-sticky-${Date.now()}` };
      expect((await create(withMetadata, { model: 'sim/gpt-4o-mini-flaky' }, session)).provider).toBe('Simulator B');
      const again = await create(withMetadata, { model: 'sim/gpt-4o-mini-flaky' }, session);
      expect(again.provider).toBe('Simulator B');
      expect(again.service_metadata).toMatchObject({ attempt: 1, strategy: 'sticky' });
      expect((await create(plain, { model: 'sim/gpt-4o-mini-flaky' })).provider).toBe('Simulator');
    });
  });

  it("returns the provider's retry-after to the client, and holds the endpoint until then", async () => {
    const call = () =>
      fetch(`${stack.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sim/gpt-4o-mini-rate-limited', messages }),
      });
    const first = await call();
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('7');
    expect(((await first.json()) as { error: unknown }).error).toMatchObject({
      code: 429,
      metadata: { error_type: 'rate_limit_exceeded', retry_after: 7 },
    });
    // The provider is not called again inside its wait: the answer says how long is left.
    const second = await call();
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(second.headers.get('retry-after'))).toBeLessThanOrEqual(7);
    expect(((await second.json()) as { error: { metadata: unknown } }).error.metadata).toMatchObject({ reason: 'upstream_rate_limited' });
  });
});
