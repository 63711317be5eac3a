import OpenAI from 'openai';
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const management = new pg.Client({ connectionString: stack.managementDatabaseUrl });
const chatBody = { model: 'sim/gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say hi' }] };

/** A key of its own per test, so its ledger rows are the test's only. */
async function newKey(): Promise<{ key: string; keyHash: string }> {
  const created = await call('/keys', { key: stack.managementKey, body: { name: `idem-${randomUUID()}` } });
  expect(created.status).toBe(201);
  const { key } = created.body as { key: string };
  return { key, keyHash: sha256(key) };
}

async function ledgerOf(keyHash: string): Promise<string[]> {
  const { rows } = await management.query<{ id: string }>('SELECT generation_id AS id FROM usage_ledger WHERE key_hash = $1 ORDER BY 1', [
    keyHash,
  ]);
  return rows.map((row) => row.id);
}

/** Waits until management counted `count` generations of the key, then checks no more arrive (a second charge would, by then). */
async function expectBilled(keyHash: string, count: number): Promise<string[]> {
  await expect.poll(async () => (await ledgerOf(keyHash)).length, { timeout: 30_000 }).toBe(count);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const ids = await ledgerOf(keyHash);
  expect(ids).toHaveLength(count);
  return ids;
}

/** A raw POST whose body is kept as text: a replay must be the same bytes. */
async function post(path: string, key: string, body: unknown, idempotencyKey?: string): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  const response = await fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  await management.connect();
});
afterAll(async () => {
  await management.end();
});

describe('Idempotency-Key on the generating routes', () => {
  it('chat: the same key and body twice is one generation billed and the same answer; without the key, two', async () => {
    const { key, keyHash } = await newKey();
    const client = new OpenAI({ apiKey: key, baseURL: stack.baseUrl, maxRetries: 0 });
    const idempotencyKey = randomUUID();
    const first = await client.chat.completions.create(chatBody, { headers: { 'Idempotency-Key': idempotencyKey } });
    const retried = await client.chat.completions.create(chatBody, { headers: { 'Idempotency-Key': idempotencyKey } });
    expect(retried).toEqual(first);
    // The control: the same body without a key is another generation, billed.
    const unkeyed = await client.chat.completions.create(chatBody);
    expect(unkeyed.id).not.toBe(first.id);
    expect(await expectBilled(keyHash, 2)).toEqual([first.id, unkeyed.id].sort());
  }, 60_000);

  it('a different body with the same key is a 422 envelope and runs nothing', async () => {
    const { key, keyHash } = await newKey();
    const idempotencyKey = randomUUID();
    expect((await post('/chat/completions', key, chatBody, idempotencyKey)).status).toBe(200);
    const other = await post('/chat/completions', key, { ...chatBody, messages: [{ role: 'user', content: 'Say bye' }] }, idempotencyKey);
    const refused = { status: other.status, body: JSON.parse(other.text) as unknown };
    expect(refused.status).toBe(422);
    expect(envelopeOf(refused)).toMatchObject({ metadata: { reason: 'idempotency_key_reused', retryable: false } });
    // The same key on another generating route is another request too.
    const elsewhere = await post('/embeddings', key, { model: 'sim/text-embedding-3-small', input: 'hi' }, idempotencyKey);
    expect(elsewhere.status).toBe(422);
    await expectBilled(keyHash, 1);
  }, 60_000);

  it('keys are scoped per API key: another key of the workspace with the same Idempotency-Key is its own request', async () => {
    const one = await newKey();
    const two = await newKey();
    const idempotencyKey = randomUUID();
    const first = await post('/chat/completions', one.key, chatBody, idempotencyKey);
    const second = await post('/chat/completions', two.key, chatBody, idempotencyKey);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect((JSON.parse(second.text) as { id: string }).id).not.toBe((JSON.parse(first.text) as { id: string }).id);
    await expectBilled(one.keyHash, 1);
    await expectBilled(two.keyHash, 1);
  }, 60_000);

  it('a stream retried gets the stored stream again, byte for byte, and is billed once', async () => {
    const { key, keyHash } = await newKey();
    const idempotencyKey = randomUUID();
    const body = { ...chatBody, stream: true, stream_options: { include_usage: true } };
    const first = await post('/chat/completions', key, body, idempotencyKey);
    const retried = await post('/chat/completions', key, body, idempotencyKey);
    expect(first.status).toBe(200);
    expect(first.text).toContain('data: [DONE]');
    expect(retried).toEqual(first);
    // The openai client reads the replay as a stream like any other.
    const client = new OpenAI({ apiKey: key, baseURL: stack.baseUrl, maxRetries: 0 });
    let text = '';
    let cost: number | undefined;
    for await (const chunk of await client.chat.completions.create(
      { ...chatBody, stream: true, stream_options: { include_usage: true } },
      { headers: { 'Idempotency-Key': idempotencyKey } },
    )) {
      text += chunk.choices[0]?.delta.content ?? '';
      cost = (chunk.usage as { cost?: number } | undefined)?.cost ?? cost;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(cost).toBeGreaterThan(0);
    const ids = await expectBilled(keyHash, 1);
    expect(first.text).toContain(ids[0]);
  }, 60_000);

  it('a retry sent while the first still runs waits for it and gets its answer: one generation', async () => {
    const { key, keyHash } = await newKey();
    const idempotencyKey = randomUUID();
    // The provider answers after 3 s; the retry arrives meanwhile.
    const body = { ...chatBody, model: 'sim/gpt-4o-mini-delayed' };
    const first = post('/chat/completions', key, body, idempotencyKey);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const retried = await post('/chat/completions', key, body, idempotencyKey);
    expect(retried.status).toBe(200);
    expect(retried).toEqual(await first);
    await expectBilled(keyHash, 1);
  }, 60_000);

  it('embeddings, Responses and Messages: a retry gets the same answer and is billed once', async () => {
    const { key, keyHash } = await newKey();
    const calls: Array<[string, unknown]> = [
      ['/embeddings', { model: 'sim/text-embedding-3-small', input: 'hello' }],
      ['/responses', { model: 'sim/gpt-4o-mini', input: 'Say hi' }],
      ['/messages', { model: 'sim/claude-sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Say hi' }] }],
    ];
    for (const [path, body] of calls) {
      const idempotencyKey = randomUUID();
      const first = await post(path, key, body, idempotencyKey);
      expect(first.status, `${path}: ${first.text}`).toBe(200);
      expect(await post(path, key, body, idempotencyKey)).toEqual(first);
    }
    await expectBilled(keyHash, calls.length);
  }, 90_000);

  it('a malformed Idempotency-Key is a 400 envelope naming it', async () => {
    const { key } = await newKey();
    const refused = await post('/chat/completions', key, chatBody, 'x'.repeat(300));
    expect(refused.status).toBe(400);
    expect(envelopeOf({ status: refused.status, body: JSON.parse(refused.text) })).toMatchObject({
      metadata: { reason: 'invalid_idempotency_key' },
    });
  });
});
