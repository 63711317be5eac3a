import OpenAI from 'openai';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace } from './seed-workspace.js';
import { call, stack } from './e2e-helpers.js';

/** The fixture's upstream model string: the simulator counts the calls it received for it alone. */
const UPSTREAM = 'gpt-4o-mini;latency=300;reply-tokens=23';
const MODEL = 'sim/gpt-4o-mini-cache-probe';
const CACHE = { 'x-service-cache': 'true' };

const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });

async function upstreamCalls(): Promise<number> {
  const stats = (await (await fetch(`${stack.simulatorUrl}/sim/streams?key=${encodeURIComponent(UPSTREAM)}`)).json()) as {
    received: number;
  };
  return stats.received;
}

/** A question no other run asked, so every test starts from a miss. */
function question(): Array<{ role: 'user'; content: string }> {
  return [{ role: 'user', content: `What does a response cache save? (${randomUUID()})` }];
}

async function ask(client: OpenAI, messages: ReturnType<typeof question>, headers: Record<string, string> = CACHE) {
  const { data, response } = await client.chat.completions.create({ model: MODEL, messages, temperature: 0 }, { headers }).withResponse();
  return { data: data as typeof data & { usage: { cost: number } }, status: response.headers.get('x-service-cache-status') };
}

async function streamed(
  messages: ReturnType<typeof question>,
): Promise<{ text: string; status: string | null; chunks: ChatCompletionChunk[] }> {
  const response = await fetch(`${stack.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json', ...CACHE },
    body: JSON.stringify({ model: MODEL, messages, temperature: 0, stream: true, stream_options: { include_usage: true } }),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  const chunks = text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: {'))
    .map((frame) => JSON.parse(frame.slice(6)) as ChatCompletionChunk);
  return { text, status: response.headers.get('x-service-cache-status'), chunks };
}

/** A counter of a process's `/metrics`, summed over the series whose labels include `labels`. */
async function metric(process: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(stack.metricsUrls[process]!)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

const generations = new pg.Client({ connectionString: stack.inferenceDatabaseUrl });

/** A generation's row, once inference's consumer wrote it. */
async function generationRow(id: string): Promise<{ cache_hit: boolean; cost: string; cost_avoided: string | null }> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const { rows } = await generations.query<{ cache_hit: boolean; cost: string; cost_avoided: string | null }>(
      'SELECT cache_hit, cost::float8::text AS cost, cost_avoided::text AS cost_avoided FROM generations WHERE id = $1',
      [id],
    );
    if (rows[0]) return rows[0];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`generation ${id} was not recorded`);
}

beforeAll(async () => {
  await database.connect();
  await generations.connect();
});
afterAll(async () => {
  await database.end();
  await generations.end();
});

describe('the response cache (opt-in)', () => {
  it('answers the same request twice with one upstream call: the second a hit, same content, cost at the cache price (0)', async () => {
    const messages = question();
    const before = await upstreamCalls();
    const edgeHits = () => metric('api-gateway', 'gateway_response_cache_lookups_total', 'door="chat",result="hit"');
    const edgeBefore = await edgeHits();
    const first = await ask(openai, messages);
    const second = await ask(openai, messages);
    expect(first.status).toBe('MISS');
    expect(second.status).toBe('HIT');
    // A whole answer without a preset is answered by the gateway itself.
    expect(await edgeHits()).toBe(edgeBefore + 1);
    expect(second.data.choices[0]!.message.content).toBe(first.data.choices[0]!.message.content);
    expect(JSON.stringify(second.data.choices)).toBe(JSON.stringify(first.data.choices));
    expect(second.data.usage.completion_tokens).toBe(first.data.usage.completion_tokens);
    expect(first.data.usage.cost).toBeGreaterThan(0);
    expect(second.data.usage.cost).toBe(0);
    // A hit is a generation of its own.
    expect(second.data.id).not.toBe(first.data.id);
    expect(await upstreamCalls()).toBe(before + 1);
    // The hit's generation record: marked, charged the cache price, with what the miss cost.
    const row = await generationRow(second.data.id);
    expect(row).toMatchObject({ cache_hit: true, cost: '0' });
    expect(Number(row.cost_avoided)).toBeCloseTo(first.data.usage.cost, 10);
    expect((await generationRow(first.data.id)).cache_hit).toBe(false);
  });

  it('shows a hit in activity and analytics as savings equal to the cost it avoided, exactly', async () => {
    const created = await call('/keys', { key: stack.managementKey, body: { name: 'savings' } });
    expect(created.status).toBe(201);
    const own = created.body as { key: string; data: { hash: string } };
    const client = new OpenAI({ apiKey: own.key, baseURL: stack.baseUrl, maxRetries: 0 });
    const messages = question();
    const miss = await ask(client, messages);
    const hit = await ask(client, messages);
    expect([miss.status, hit.status]).toEqual(['MISS', 'HIT']);
    await generationRow(hit.data.id);
    await generationRow(miss.data.id);

    const analytics = await call('/analytics/query', {
      key: stack.managementKey,
      body: {
        metrics: ['request_count', 'usage', 'response_cache_hits', 'response_cache_cost_avoided', 'response_cache_savings'],
        filters: [{ field: 'api_key_id', operator: 'eq', value: own.data.hash }],
      },
    });
    expect(analytics.status, JSON.stringify(analytics.body)).toBe(200);
    // The cache price is 0 here: the hit saved all the miss paid.
    expect((analytics.body as { data: { data: unknown[] } }).data.data).toEqual([
      {
        request_count: 2,
        usage: miss.data.usage.cost,
        response_cache_hits: 1,
        response_cache_cost_avoided: miss.data.usage.cost,
        response_cache_savings: miss.data.usage.cost,
      },
    ]);
    const today = new Date().toISOString().slice(0, 10);
    const activity = await call(`/activity?date=${today}&api_key_hash=${own.data.hash}`, { key: stack.managementKey });
    expect(activity.status).toBe(200);
    expect((activity.body as { data: unknown[] }).data).toEqual([
      expect.objectContaining({
        requests: 2,
        usage: miss.data.usage.cost,
        response_cache_hits: 1,
        response_cache_savings: miss.data.usage.cost,
      }),
    ]);
  });

  it('does not cache without an opt-in', async () => {
    const messages = question();
    const before = await upstreamCalls();
    const first = await ask(openai, messages, {});
    const second = await ask(openai, messages, {});
    expect(first.status).toBeNull();
    expect(second.status).toBeNull();
    expect(await upstreamCalls()).toBe(before + 2);
  });

  it('opts in with the body field too (LiteLLM spelling), and a later no-cache refreshes the entry', async () => {
    const messages = question();
    const before = await upstreamCalls();
    const body = { model: MODEL, messages, temperature: 0, cache: { ttl: 60 } } as never;
    await openai.chat.completions.create(body);
    const hit = await openai.chat.completions.create(body).withResponse();
    expect(hit.response.headers.get('x-service-cache-status')).toBe('HIT');
    const refreshed = await ask(openai, messages, { ...CACHE, 'cache-control': 'no-cache' });
    expect(refreshed.status).toBe('REFRESH');
    expect(refreshed.data.usage.cost).toBeGreaterThan(0);
    const after = await ask(openai, messages);
    expect(after.status).toBe('HIT');
    expect(after.data.choices[0]!.message.content).toBe(refreshed.data.choices[0]!.message.content);
    // no-store neither reads nor writes: upstream again, no status.
    const bypassed = await ask(openai, messages, { ...CACHE, 'cache-control': 'no-store' });
    expect(bypassed.status).toBeNull();
    expect(await upstreamCalls()).toBe(before + 3);
  });

  it('never answers another workspace from this one’s entries', async () => {
    const messages = question();
    const tenant = await seedWorkspace(database, '10');
    const other = new OpenAI({ apiKey: tenant.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
    const before = await upstreamCalls();
    expect((await ask(openai, messages)).status).toBe('MISS');
    const elsewhere = await ask(other, messages);
    expect(elsewhere.status).toBe('MISS');
    expect(elsewhere.data.usage.cost).toBeGreaterThan(0);
    expect(await upstreamCalls()).toBe(before + 2);
  });

  it('replays a cached stream as a valid SSE stream with the same content and usage chunk', async () => {
    const messages = question();
    const before = await upstreamCalls();
    const edgeHits = () => metric('api-gateway', 'gateway_response_cache_lookups_total', 'door="chat",result="hit"');
    const edgeBefore = await edgeHits();
    const first = await streamed(messages);
    const second = await streamed(messages);
    expect(second.status).toBe('HIT');
    // A stream without a preset is replayed by the gateway itself, recorded as a streamed hit.
    expect(await edgeHits()).toBe(edgeBefore + 1);
    expect(await generationRow(second.chunks[0]!.id)).toMatchObject({ cache_hit: true, cost: '0' });
    expect(second.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(second.text.startsWith('data: ')).toBe(true);
    const content = (chunks: ChatCompletionChunk[]) => chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(content(second.chunks)).toBe(content(first.chunks));
    const usage = (chunks: ChatCompletionChunk[]) => chunks.at(-1)!.usage as (ChatCompletionChunk['usage'] & { cost: number }) | undefined;
    expect(usage(second.chunks)?.completion_tokens).toBe(usage(first.chunks)?.completion_tokens);
    expect(usage(first.chunks)?.cost).toBeGreaterThan(0);
    expect(usage(second.chunks)?.cost).toBe(0);
    // Every chunk of the replay names the hit's own generation.
    expect(new Set(second.chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(second.chunks[0]!.id).not.toBe(first.chunks[0]!.id);
    // The openai client parses the replay as it parsed the original.
    const replay = await openai.chat.completions.create(
      { model: MODEL, messages, temperature: 0, stream: true, stream_options: { include_usage: true } },
      { headers: CACHE },
    );
    let text = '';
    for await (const chunk of replay) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(content(first.chunks));
    expect(await upstreamCalls()).toBe(before + 1);
  });

  it('sends 50 identical concurrent requests upstream once (coalescing)', async () => {
    const messages = question();
    const before = await upstreamCalls();
    const answers = await Promise.all(Array.from({ length: 50 }, () => ask(openai, messages)));
    const contents = new Set(answers.map((answer) => answer.data.choices[0]!.message.content));
    expect(contents.size).toBe(1);
    expect(answers.filter((answer) => answer.status === 'MISS')).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 'HIT')).toHaveLength(49);
    expect(await upstreamCalls()).toBe(before + 1);
  });

  it('caches by default for a key with response_cache_ttl_seconds, unless the request opts out', async () => {
    const created = await call('/keys', { key: stack.managementKey, body: { name: 'cached by default', response_cache_ttl_seconds: 120 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const keyed = new OpenAI({ apiKey: (created.body as { key: string }).key, baseURL: stack.baseUrl, maxRetries: 0 });
    const messages = question();
    const before = await upstreamCalls();
    expect((await ask(keyed, messages, {})).status).toBe('MISS');
    expect((await ask(keyed, messages, {})).status).toBe('HIT');
    expect((await ask(keyed, messages, { 'x-service-cache': 'false' })).status).toBeNull();
    expect(await upstreamCalls()).toBe(before + 2);
    // A bad value is refused at the edge.
    const refused = await call('/keys', { key: stack.managementKey, body: { name: 'bad ttl', response_cache_ttl_seconds: 0 } });
    expect(refused.status).toBe(400);
  });

  it('caches the requests of a preset whose config opts in', async () => {
    const slug = `cached-${randomUUID().slice(0, 8)}`;
    const written = await call(`/presets/${slug}/chat/completions`, {
      key: stack.managementKey,
      body: { model: MODEL, temperature: 0, cache: { ttl: 120 }, messages: [{ role: 'user', content: 'preset' }] },
    });
    expect(written.status, JSON.stringify(written.body)).toBeLessThan(300);
    const messages = question();
    const before = await upstreamCalls();
    const viaPreset = () => openai.chat.completions.create({ model: `@preset/${slug}`, messages }).withResponse();
    expect((await viaPreset()).response.headers.get('x-service-cache-status')).toBe('MISS');
    expect((await viaPreset()).response.headers.get('x-service-cache-status')).toBe('HIT');
    expect(await upstreamCalls()).toBe(before + 1);
  });

  it('refuses a malformed cache control with a 400 envelope', async () => {
    const badHeader = await call('/chat/completions', {
      body: { model: MODEL, messages: question() },
      headers: { 'x-service-cache-ttl': 'soon' },
    });
    expect(badHeader.status).toBe(400);
    const badBody = await call('/chat/completions', { body: { model: MODEL, messages: question(), cache: { ttl: 'soon' } } });
    expect(badBody.status).toBe(400);
  });

  it('does not cache n > 1 sampled choices unless asked', async () => {
    const messages = question();
    const before = await upstreamCalls();
    const request = { model: MODEL, messages, n: 2, temperature: 0.7 };
    const first = await openai.chat.completions.create(request, { headers: CACHE }).withResponse();
    const second = await openai.chat.completions.create(request, { headers: CACHE }).withResponse();
    expect(first.response.headers.get('x-service-cache-status')).toBeNull();
    expect(second.response.headers.get('x-service-cache-status')).toBeNull();
    expect(await upstreamCalls()).toBe(before + 2);
  });

  it('replays streamed Responses and Messages from the gateway in their own events, the same text', async () => {
    const input = `Stream this answer (${randomUUID()})`;
    const edgeHits = (door: string) => metric('api-gateway', 'gateway_response_cache_lookups_total', `door="${door}",result="hit"`);
    const sse = async (path: string, headers: Record<string, string>, body: object) => {
      const response = await fetch(`${stack.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers, ...CACHE },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return { text: await response.text(), status: response.headers.get('x-service-cache-status') };
    };
    const events = (text: string) =>
      text
        .split('\n\n')
        .filter(Boolean)
        .map((frame) => frame.split('\n')[0]);
    const deltas = (text: string, field: 'delta' | 'text') =>
      text
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice(6)) as { delta?: unknown })
        .map((data) =>
          field === 'delta' ? (typeof data.delta === 'string' ? data.delta : '') : ((data.delta as { text?: string })?.text ?? ''),
        )
        .join('');
    const before = await upstreamCalls();

    const responsesBefore = await edgeHits('responses');
    const responses = () =>
      sse('/responses', { authorization: `Bearer ${stack.apiKey}` }, { model: MODEL, input, temperature: 0, stream: true });
    const r1 = await responses();
    const r2 = await responses();
    expect(r2.status).toBe('HIT');
    expect(await edgeHits('responses')).toBe(responsesBefore + 1);
    expect(events(r2.text)).toEqual(events(r1.text));
    expect(deltas(r2.text, 'delta')).toBe(deltas(r1.text, 'delta'));
    expect(deltas(r1.text, 'delta').length).toBeGreaterThan(0);

    const messagesBefore = await edgeHits('messages');
    const messages = () =>
      sse(
        '/messages',
        { 'x-api-key': stack.apiKey, 'anthropic-version': '2023-06-01' },
        { model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: input }] },
      );
    const m1 = await messages();
    const m2 = await messages();
    expect(m2.status).toBe('HIT');
    expect(await edgeHits('messages')).toBe(messagesBefore + 1);
    expect(events(m2.text)).toEqual(events(m1.text));
    expect(deltas(m2.text, 'text')).toBe(deltas(m1.text, 'text'));
    expect(deltas(m1.text, 'text').length).toBeGreaterThan(0);
    expect(await upstreamCalls()).toBe(before + 2);
  });

  it('caches the Responses, Messages and embeddings front doors too', async () => {
    const input = `Cache this answer (${randomUUID()})`;
    const responses = async () => {
      const { data, response } = await openai.responses.create({ model: MODEL, input, temperature: 0 }, { headers: CACHE }).withResponse();
      return { text: data.output_text, status: response.headers.get('x-service-cache-status') };
    };
    const r1 = await responses();
    const r2 = await responses();
    expect([r1.status, r2.status]).toEqual(['MISS', 'HIT']);
    expect(r2.text).toBe(r1.text);

    const message = async () => {
      const response = await fetch(`${stack.baseUrl}/messages`, {
        method: 'POST',
        headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...CACHE },
        body: JSON.stringify({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: input }] }),
      });
      expect(response.status).toBe(200);
      return { body: (await response.json()) as { content: unknown }, status: response.headers.get('x-service-cache-status') };
    };
    const m1 = await message();
    const m2 = await message();
    expect([m1.status, m2.status]).toEqual(['MISS', 'HIT']);
    expect(m2.body.content).toEqual(m1.body.content);

    const embed = () => openai.embeddings.create({ model: 'sim/text-embedding-3-small', input }, { headers: CACHE }).withResponse();
    const e1 = await embed();
    const e2 = await embed();
    expect(e1.response.headers.get('x-service-cache-status')).toBe('MISS');
    expect(e2.response.headers.get('x-service-cache-status')).toBe('HIT');
    expect(e2.data.data[0]!.embedding).toEqual(e1.data.data[0]!.embedding);
    expect((e2.data.usage as { cost?: number }).cost ?? 0).toBe(0);
  });
});
