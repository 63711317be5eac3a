import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/*
 * Issue 35 item 5 through the running gateway: a lone surrogate (valid JSON text, no Unicode)
 * is a 400 naming the field on every route that takes a body, batch uploads included; nesting
 * far past the limit is a 400 everywhere, before anything serialises the body; a key used
 * while it changes (PATCHed, identity unlinked) never gets a 5xx.
 */

const LONE = '"\\ud800"';
const MARK = '"__LONE__"';
const NO_INTERN = '00000000-0000-4000-8000-000000000000';
const messages = [{ role: 'user', content: 'Hi' }];
let keyHash = '';
let byokId = '';

interface Case {
  method: 'POST' | 'PATCH';
  path: () => string;
  key: () => string;
  /** The body with `__LONE__` where the lone surrogate goes, and the field the 400 must name. */
  body: unknown;
  param: string;
}

const api = () => stack.apiKey;
const management = () => stack.managementKey;
const batch = (extra: Record<string, unknown>, line: unknown) => ({
  endpoint: '/v1/chat/completions',
  model: 'sim/gpt-4o-mini',
  completion_window: '24h',
  ...extra,
  requests: [line],
});

const CASES: Case[] = [
  {
    method: 'POST',
    path: () => '/chat/completions',
    key: api,
    body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: '__LONE__' }] },
    param: 'messages[0].content',
  },
  {
    method: 'POST',
    path: () => '/chat/completions',
    key: api,
    body: { model: 'sim/gpt-4o-mini', messages, stop: ['__LONE__'] },
    param: 'stop[0]',
  },
  { method: 'POST', path: () => '/responses', key: api, body: { model: 'sim/gpt-4o-mini', input: '__LONE__' }, param: 'input' },
  {
    method: 'POST',
    path: () => '/messages',
    key: api,
    body: { model: 'sim/claude-sonnet', max_tokens: 8, messages, system: '__LONE__' },
    param: 'system',
  },
  {
    method: 'POST',
    path: () => '/embeddings',
    key: api,
    body: { model: 'sim/text-embedding-3-small', input: ['__LONE__'] },
    param: 'input[0]',
  },
  { method: 'POST', path: () => '/keys', key: management, body: { name: '__LONE__' }, param: 'name' },
  { method: 'PATCH', path: () => `/keys/${keyHash}`, key: management, body: { name: 'ok', limit_reset: '__LONE__' }, param: 'limit_reset' },
  {
    method: 'POST',
    path: () => '/byok',
    key: management,
    body: { provider: 'openai', key: 'sk-bad-bytes-0123456789', allowed_models: ['__LONE__'] },
    param: 'allowed_models[0]',
  },
  { method: 'PATCH', path: () => `/byok/${byokId}`, key: management, body: { name: '__LONE__' }, param: 'name' },
  {
    method: 'POST',
    path: () => '/presets/bad-bytes/chat/completions',
    key: management,
    body: { model: '__LONE__', messages },
    param: 'model',
  },
  {
    method: 'POST',
    path: () => '/presets/bad-bytes/chat/completions',
    key: management,
    body: { model: 'sim/gpt-4o-mini', messages, stop: '__LONE__' },
    param: 'stop',
  },
  { method: 'POST', path: () => '/interns', key: api, body: { name: '__LONE__' }, param: 'name' },
  { method: 'PATCH', path: () => `/interns/${NO_INTERN}`, key: api, body: { name: '__LONE__' }, param: 'name' },
  {
    method: 'POST',
    path: () => '/batches',
    key: api,
    body: batch({ metadata: { tag: '__LONE__' } }, { custom_id: 'a', body: { messages } }),
    param: 'metadata.tag',
  },
  {
    method: 'POST',
    path: () => '/batches',
    key: api,
    body: batch({}, { custom_id: 'a', body: { messages: [{ role: 'user', content: '__LONE__' }] } }),
    param: 'requests[0].body.messages[0].content',
  },
  {
    method: 'POST',
    path: () => '/batches',
    key: api,
    body: batch({}, { custom_id: '__LONE__', body: { messages } }),
    param: 'requests[0].custom_id',
  },
];

function deep(levels: number): string {
  return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

/** Every route with a body, its body holding a 5,000-level value where it is read first. */
const DEEP: Array<{ method: 'POST' | 'PATCH'; path: () => string; key: () => string; text: string }> = [
  ...CASES.filter(
    (c, index) => CASES.findIndex((other) => other.path() === c.path() && other.method === c.method) === index && c.path() !== '/batches',
  ).map((c) => ({ method: c.method, path: c.path, key: c.key, text: JSON.stringify({ deep: '__DEEP__' }) })),
  { method: 'POST', path: () => '/credits', key: management, text: JSON.stringify({ amount: 1, deep: '__DEEP__' }) },
  {
    method: 'POST',
    path: () => `/interns/${NO_INTERN}/daemon/sign`,
    key: api,
    text: JSON.stringify({ bodySha256: 'a'.repeat(64), deep: '__DEEP__' }),
  },
  {
    method: 'POST',
    path: () => '/batches',
    key: api,
    text: JSON.stringify(batch({ metadata: '__DEEP__' }, { custom_id: 'a', body: { messages } })),
  },
  {
    method: 'POST',
    path: () => '/batches',
    key: api,
    text: JSON.stringify(batch({ provider: '__DEEP__' }, { custom_id: 'a', body: { messages } })),
  },
  {
    method: 'POST',
    path: () => '/batches',
    key: api,
    text: JSON.stringify(batch({}, { custom_id: 'a', body: { messages, metadata: '__DEEP__' } })),
  },
  {
    method: 'POST',
    path: () => '/batches',
    key: api,
    text: JSON.stringify(batch({}, { custom_id: 'a', body: { messages, model: '__DEEP__' } })),
  },
];

async function send(method: string, path: string, key: string, text: string) {
  return call(path, { method, key, rawBody: text, headers: { 'content-type': 'application/json' } });
}

describe('bad bytes and races (issue 35)', () => {
  beforeAll(async () => {
    const key = await call('/keys', { key: stack.managementKey, body: { name: 'bad bytes target' } });
    keyHash = (key.body as { data: { hash: string } }).data.hash;
    const byok = await call('/byok', {
      key: stack.managementKey,
      body: { provider: 'openai', key: 'sk-bad-bytes-target-0123', name: 'target' },
    });
    byokId = (byok.body as { data: { id: string } }).data.id;
  });

  afterAll(async () => {
    await call(`/byok/${byokId}`, { key: stack.managementKey, method: 'DELETE' });
    await call(`/keys/${keyHash}`, { key: stack.managementKey, method: 'DELETE' });
  });

  it('refuses a lone surrogate with a 400 naming the field, on every route that takes a body', async () => {
    for (const { method, path, key, body, param } of CASES) {
      const text = JSON.stringify(body).replace(MARK, LONE);
      const answer = await send(method, path(), key(), text);
      expect(answer.status, `${method} ${path()} ${param}: ${JSON.stringify(answer.body)}`).toBe(400);
      const error = envelopeOf(answer);
      expect(error.metadata?.param, `${method} ${path()}`).toBe(param);
      expect(error.message).toMatch(/valid Unicode/);
    }
  });

  it('refuses 5,000 levels of nesting with a 400 on every route that takes a body, batch lines and headers included', async () => {
    for (const { method, path, key, text } of DEEP) {
      const answer = await send(method, path(), key(), text.replace('"__DEEP__"', deep(5_000)));
      expect(answer.status, `${method} ${path()} ${text.slice(0, 120)}: ${JSON.stringify(answer.body)}`).toBe(400);
      expect(envelopeOf(answer).message).toMatch(/nested deeper than 64 levels/);
    }
  });

  it('never answers 5xx to a key used while it is PATCHed and its identity unlinked', async () => {
    const created = await call('/keys', {
      key: stack.managementKey,
      body: { name: 'race', rate_limit: { requests_per_minute: 1_000_000, concurrent_requests: 1_000 } },
    });
    const { key, data } = created.body as { key: string; data: { hash: string } };
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    // At least 3 s and 60 reads of the key (a loaded host answers slowly), at most 30 s.
    const started = Date.now();
    const racing = () => Date.now() - started < 30_000 && (Date.now() - started < 3_000 || (statuses.get(200) ?? 0) < 60);
    const loop = async (work: () => Promise<number>) => {
      while (racing()) count(await work());
    };
    let flip = 0;
    await Promise.all([
      ...Array.from({ length: 6 }, () => loop(async () => (await call('/models', { key })).status)),
      loop(
        async () =>
          (await call(`/keys/${data.hash}`, { key: stack.managementKey, method: 'PATCH', body: { name: `race ${flip++}` } })).status,
      ),
      loop(async () => (await call('/identity', { key, method: 'DELETE' })).status),
    ]);
    await call(`/keys/${data.hash}`, { key: stack.managementKey, method: 'DELETE' });
    const summary = JSON.stringify(Object.fromEntries(statuses));
    console.log(`key used while PATCHed and its identity unlinked, statuses of ${Date.now() - started} ms: ${summary}`);
    expect(
      [...statuses.keys()].filter((status) => status >= 500),
      summary,
    ).toEqual([]);
    expect(statuses.get(200) ?? 0, summary).toBeGreaterThan(50);
  }, 60_000);
});
