import { describe, expect, it } from 'vitest';
import { cacheKeyOf } from './cache-key.js';
import { bodyControls, controlsOf, decide } from './cache-request.js';
import { stampJson, stampPacket } from './cached-answer.js';

const settings = { defaultTtlSeconds: 300, maxTtlSeconds: 3600 };
const body = { model: 'sim/gpt', messages: [{ role: 'user', content: 'hi' }], temperature: 0 };

describe('the cache key', () => {
  it('ignores who asked, tracing, key order and nulls', () => {
    const key = cacheKeyOf('chat', false, body);
    expect(cacheKeyOf('chat', false, { temperature: 0, messages: [{ content: 'hi', role: 'user' }], model: 'sim/gpt' })).toBe(key);
    expect(cacheKeyOf('chat', false, { ...body, user: 'u1', session_id: 's', metadata: { a: '1' }, trace: { x: 1 }, seed: null })).toBe(
      key,
    );
  });

  it('changes with what determines the answer, the door and the mode', () => {
    const key = cacheKeyOf('chat', false, body);
    expect(cacheKeyOf('chat', false, { ...body, model: 'sim/other' })).not.toBe(key);
    expect(cacheKeyOf('chat', false, { ...body, temperature: 0.5 })).not.toBe(key);
    expect(cacheKeyOf('chat', false, { ...body, seed: 7 })).not.toBe(key);
    expect(cacheKeyOf('chat', false, { ...body, response_format: { type: 'json_object' } })).not.toBe(key);
    expect(cacheKeyOf('chat', true, body)).not.toBe(key);
    expect(cacheKeyOf('responses', false, body)).not.toBe(key);
  });
});

describe('the cache decision', () => {
  it('is off without an opt-in, and when the operator bound is 0', () => {
    expect(decide(undefined, body, settings)).toBeUndefined();
    expect(decide({ enabled: false }, body, settings)).toBeUndefined();
    expect(decide({ enabled: true }, body, { ...settings, maxTtlSeconds: 0 })).toBeUndefined();
  });

  it('bounds the TTL by the operator and maps no-cache to a refresh, no-store to a bypass', () => {
    expect(decide({ enabled: true }, body, settings)).toMatchObject({ read: true, write: true, ttlSeconds: 300, missStatus: 'MISS' });
    expect(decide({ enabled: true, ttlSeconds: 99_999 }, body, settings)?.ttlSeconds).toBe(3600);
    expect(decide({ enabled: true, directive: 'refresh' }, body, settings)).toMatchObject({ read: false, write: true, coalesce: false });
    expect(decide({ enabled: true, directive: 'bypass' }, body, settings)).toBeUndefined();
  });

  it('never caches what cannot be reused', () => {
    const on = { enabled: true };
    expect(decide(on, { ...body, n: 2, temperature: 0.7 }, settings)).toBeUndefined();
    expect(decide(on, { ...body, n: 2 }, settings)).toBeDefined(); // temperature 0
    expect(decide({ ...on, allowSampledChoices: true }, { ...body, n: 2, temperature: 1 }, settings)).toBeDefined();
    expect(decide(on, { ...body, tools: [{ type: 'service:web_search' }] }, settings)).toBeUndefined();
    expect(decide(on, { ...body, plugins: [{ id: 'web' }] }, settings)).toBeUndefined();
    expect(decide(on, { ...body, plugins: [{ id: 'response-healing' }] }, settings)).toBeDefined();
    expect(decide({ ...on, private: true }, body, settings)).toBeUndefined();
    expect(decide(on, { ...body, store: false }, settings)).toBeUndefined();
    expect(decide(on, { ...body, provider: { zdr: true } }, settings)).toBeUndefined();
    expect(decide(on, { ...body, debug: { echo_upstream_body: true } }, settings)).toBeUndefined();
  });

  it('reads the body field (LiteLLM spelling), a preset’s field under the caller’s', () => {
    expect(bodyControls(true)).toEqual({ enabled: true });
    expect(bodyControls({ ttl: 60, 'no-cache': true })).toEqual({ enabled: true, ttlSeconds: 60, directive: 'refresh' });
    expect(() => bodyControls({ ttl: -1 })).toThrow(/ttl/);
    expect(() => bodyControls({ namespace: 'x' })).toThrow(/namespace/);
    expect(controlsOf({ enabled: false }, { cache: { ttl: 60 } })).toEqual({ enabled: false, ttlSeconds: 60 });
  });
});

describe('a stored answer stamped for a hit', () => {
  const stamp = {
    storedId: 'gen-old',
    hitId: 'gen-new',
    cost: 0,
    serviceMetadata: false,
    metadataField: 'service_metadata' as const,
    ageSeconds: 3,
  };

  it('takes the hit’s id and cost and keeps the content', () => {
    const stored = JSON.stringify({
      id: 'gen-old',
      choices: [{ message: { content: 'same words' } }],
      usage: { completion_tokens: 5, cost: 0.25, is_byok: false, cost_details: { upstream_inference_prompt_cost: 0.1 } },
      service_metadata: { provider: 'x' },
    });
    const hit = JSON.parse(stampJson(stored, stamp)) as Record<string, any>;
    expect(hit.id).toBe('gen-new');
    expect(hit.choices[0].message.content).toBe('same words');
    expect(hit.usage).toMatchObject({ completion_tokens: 5, cost: 0, cost_details: { upstream_inference_prompt_cost: 0 } });
    expect(hit.service_metadata).toBeUndefined();
  });

  it('stamps framed events and chunks, parsing only those with a cost', () => {
    expect(stampPacket('{"id":"gen-old","choices":[{"delta":{"content":"a"}}]}', stamp)).toBe(
      '{"id":"gen-new","choices":[{"delta":{"content":"a"}}]}',
    );
    const event = 'event: response.completed\ndata: {"response":{"id":"gen-old","usage":{"cost":1.5}}}\n\n';
    expect(stampPacket(event, stamp)).toBe('event: response.completed\ndata: {"response":{"id":"gen-new","usage":{"cost":0}}}\n\n');
  });
});
