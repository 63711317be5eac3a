import Anthropic from '@anthropic-ai/sdk';
import { OpenRouter } from '@openrouter/sdk';
import { NotFoundResponseError } from '@openrouter/sdk/models/errors';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

type PricedUsage = { cost: number };

/** Exact decimal sums: each cost as the decimal its shortest JSON spelling names, in units of 1e-18. */
const SCALE = 18;
function units(cost: number): bigint {
  const [whole, fraction = ''] = cost.toFixed(SCALE).split('.');
  return BigInt(whole!) * 10n ** BigInt(SCALE) + BigInt(fraction.padEnd(SCALE, '0'));
}
const sum = (costs: number[]) => costs.reduce((total, cost) => total + units(cost), 0n);
const asNumber = (total: bigint) =>
  Number(`${total / 10n ** BigInt(SCALE)}.${(total % 10n ** BigInt(SCALE)).toString().padStart(SCALE, '0')}`);
const sdk = new OpenRouter({ apiKey: stack.apiKey, serverURL: stack.baseUrl });
const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: stack.apiKey, baseURL: stack.baseUrl.replace(/\/v1$/, ''), maxRetries: 0 });
const messages = [{ role: 'user' as const, content: 'Tell me about gateways' }];

/** A management key of a new workspace (management's CLI). */
function otherWorkspaceKey(): string {
  const created = execFileSync(process.execPath, ['apps/management/dist/cli/create-key.js', '--json', '--management', '--name', 'other'], {
    env: { ...process.env, MANAGEMENT_DATABASE_URL: stack.managementDatabaseUrl },
    encoding: 'utf8',
  });
  return (JSON.parse(created) as { secret: string }).secret;
}

/**
 * Each read follows its answer at once, with no pause: the row is written by a consumer moments
 * after the answer, and the read must still find it (waiting for a recent id, never a 404).
 */
describe('GET /v1/generation (generations.getGeneration)', () => {
  const database = new pg.Client({ connectionString: stack.inferenceDatabaseUrl });
  beforeAll(() => database.connect());
  afterAll(() => database.end());

  it('returns a plain chat completion with the cost, tokens and provider of its answer', async () => {
    const { data: completion, response } = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages }).withResponse();
    const usage = completion.usage as OpenAI.CompletionUsage & PricedUsage;
    const { data } = await sdk.generations.getGeneration({ id: completion.id });
    expect(data.requestId).toBe(response.headers.get('x-request-id'));
    expect(data.requestId).toEqual(expect.any(String));
    expect(data).toMatchObject({
      id: completion.id,
      model: 'sim/gpt-4o-mini',
      workspaceId: stack.workspaceId,
      totalCost: usage.cost,
      usage: usage.cost,
      upstreamInferenceCost: usage.cost,
      isByok: false,
      tokensPrompt: usage.prompt_tokens,
      tokensCompletion: usage.completion_tokens,
      nativeTokensPrompt: usage.prompt_tokens,
      nativeTokensCompletion: usage.completion_tokens,
      nativeTokensReasoning: 0,
      nativeTokensCached: 0,
      apiType: 'completions',
      dataRegion: 'global',
      // No prompt cache read or written: nothing off the price.
      cacheDiscount: 0,
      presetId: null,
      router: null,
      numMediaPrompt: 0,
      numInputAudioPrompt: 0,
      moderationLatency: null,
      responseCacheSourceId: null,
      streamed: false,
      finishReason: completion.choices[0]!.finish_reason,
      cancelled: null,
    });
    expect(data.generationTime).toBeGreaterThanOrEqual(0);
    expect(data.providerName).toMatch(/^simulator/);
    expect(data.providerResponses).toEqual([expect.objectContaining({ providerName: data.providerName, status: 200, isByok: false })]);
    expect(data.latency).toBeGreaterThanOrEqual(0);
    expect(Date.parse(data.createdAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('returns a streamed chat completion with the cost of its usage chunk', async () => {
    const stream = await openai.chat.completions.create({
      model: 'sim/claude-sonnet',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let id = '';
    let usage: (OpenAI.CompletionUsage & PricedUsage) | undefined;
    for await (const chunk of stream) {
      id = chunk.id;
      if (chunk.usage) usage = chunk.usage as OpenAI.CompletionUsage & PricedUsage;
    }
    const { data } = await sdk.generations.getGeneration({ id });
    expect(data).toMatchObject({
      id,
      totalCost: usage!.cost,
      tokensCompletion: usage!.completion_tokens,
      model: 'sim/claude-sonnet',
      streamed: true,
      finishReason: 'stop',
    });
  });

  it('returns a Messages call by the id of its message', async () => {
    const message = await anthropic.messages.create({ model: 'sim/claude-sonnet', max_tokens: 256, messages });
    const usage = message.usage as Anthropic.Usage & PricedUsage;
    const { data } = await sdk.generations.getGeneration({ id: message.id });
    expect(data).toMatchObject({
      id: message.id,
      totalCost: usage.cost,
      tokensPrompt: usage.input_tokens,
      tokensCompletion: usage.output_tokens,
      finishReason: 'stop',
    });
  });

  it('returns the generation of a Responses call, found by its session (the response names no generation id)', async () => {
    const sessionId = `gen-e2e-${randomUUID()}`;
    const response = await openai.responses.create(
      { model: 'sim/gpt-5-mini', input: 'Hello!' },
      { headers: { 'x-session-id': sessionId } },
    );
    const cost = (response.usage as OpenAI.Responses.ResponseUsage & PricedUsage).cost;
    let id: string | undefined;
    for (const deadline = Date.now() + 30_000; !id && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
      id = (await database.query<{ id: string }>('SELECT id FROM generations WHERE session_id = $1', [sessionId])).rows[0]?.id;
    }
    const { data } = await sdk.generations.getGeneration({ id: id! });
    expect(data).toMatchObject({ id, totalCost: cost, sessionId, tokensPrompt: response.usage!.input_tokens });
  });

  // A batch whose lines the gateway runs (a custom_id provider batch APIs refuse). A batch run at the
  // provider's batch API records no generation per line yet: its one charge event is not a generation.
  it('returns each line of a batch the gateway ran by the id of its answer, with the cost of its usage', async () => {
    const requests = [0, 1].map((n) => ({ custom_id: `line ${n}`, body: { messages: [{ role: 'user', content: `Say ${n}` }] } }));
    const created = await call('/batches', {
      body: { endpoint: '/v1/chat/completions', model: 'sim/gpt-4o-mini', completion_window: '24h', requests },
    });
    expect(created.status).toBe(202);
    const id = (created.body as { id: string }).id;
    let batch: { status: string; results: Array<{ response: { body: { id: string; usage: PricedUsage } } }> } | undefined;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      batch = (await call(`/batches/${id}`)).body as typeof batch;
      if (batch!.status !== 'validating' && batch!.status !== 'in_progress') break;
    }
    expect(batch!.status).toBe('completed');
    expect(batch!.results).toHaveLength(2);
    for (const result of batch!.results) {
      const { data } = await sdk.generations.getGeneration({ id: result.response.body.id });
      expect(data).toMatchObject({ id: result.response.body.id, totalCost: result.response.body.usage.cost });
    }
  });

  // custom_ids the provider batch APIs accept: the batch runs at the simulator's batch API. Its lines are
  // recorded when the batch is charged (here by the read), by a key of their own to see them in activity.
  it('returns each line of a batch run at the provider by the id of its answer, with the cost of its usage, and counts it in activity', async () => {
    const created = await call('/keys', { key: stack.managementKey, body: { name: 'native batch lines' } });
    expect(created.status).toBe(201);
    const own = created.body as { key: string; data: { hash: string } };
    const requests = [0, 1].map((n) => ({ custom_id: `line-${n}`, body: { messages: [{ role: 'user', content: `Say ${n}` }] } }));
    const submitted = await call('/batches', {
      key: own.key,
      body: { endpoint: '/v1/chat/completions', model: 'sim/gpt-4o-mini', completion_window: '24h', requests },
    });
    expect(submitted.status).toBe(202);
    const id = (submitted.body as { id: string }).id;
    type NativeBatch = { status: string; results: Array<{ response: { body: { id: string; usage: PricedUsage } } }> };
    let batch: NativeBatch | undefined;
    for (const deadline = Date.now() + 90_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      batch = (await call(`/batches/${id}`, { key: own.key })).body as NativeBatch;
      if (batch.status !== 'validating' && batch.status !== 'in_progress') break;
    }
    expect(batch!.status).toBe('completed');
    expect(batch!.results).toHaveLength(2);
    const generations = [];
    for (const result of batch!.results) {
      const lineId = result.response.body.id;
      expect(lineId).toMatch(/^gen-batch-/);
      // Written by inference's consumer moments after the charge: looked up until found (30 s at most).
      let found;
      for (const deadline = Date.now() + 30_000; !found && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200)))
        found = await sdk.generations.getGeneration({ id: lineId }).catch((error: unknown) => {
          if (error instanceof NotFoundResponseError) return undefined;
          throw error;
        });
      expect(found?.data).toMatchObject({ id: lineId, totalCost: result.response.body.usage.cost });
      generations.push(found!.data);
    }
    const costs = batch!.results.map((result) => result.response.body.usage.cost);
    expect(costs.every((cost) => cost > 0)).toBe(true);
    const date = generations[0]!.createdAt.slice(0, 10);
    const activity = await call(`/activity?date=${date}&api_key_hash=${own.data.hash}`, { key: stack.managementKey });
    expect(activity.status).toBe(200);
    const items = (activity.body as { data: Array<{ requests: number; usage: number }> }).data;
    expect(items.reduce((total, item) => total + item.requests, 0)).toBe(2);
    expect(asNumber(sum(items.map((item) => item.usage)))).toBe(asNumber(sum(costs)));
  }, 120_000);

  it('records the prompt-cache discount, the preset, the router, the media in the prompt, the moderation time and a hit’s source', async () => {
    // sim/claude-sonnet-details reads prompt tokens from the cache (0.0000003 instead of 0.000003) and
    // writes some (0.00000375 instead of 0.000003): each read saves 0.0000027, each write costs 0.00000075 more.
    const cached = await openai.chat.completions.create({ model: 'sim/claude-sonnet-details', messages });
    const details = (cached.usage as unknown as { prompt_tokens_details: { cached_tokens: number; cache_write_tokens: number } })
      .prompt_tokens_details;
    expect(details.cached_tokens).toBeGreaterThan(0);
    expect((await sdk.generations.getGeneration({ id: cached.id })).data.cacheDiscount).toBeCloseTo(
      details.cached_tokens * 0.0000027 - details.cache_write_tokens * 0.00000075,
      12,
    );

    const slug = `generation-${randomUUID().slice(0, 8)}`;
    const preset = await call(`/presets/${slug}/chat/completions`, {
      key: stack.managementKey,
      body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'ignored' }] },
    });
    expect(preset.status, JSON.stringify(preset.body)).toBeLessThan(300);
    const viaPreset = await openai.chat.completions.create({ model: `@preset/${slug}`, messages });
    expect((await sdk.generations.getGeneration({ id: viaPreset.id })).data.presetId).toBe(
      (preset.body as { data: { id: string } }).data.id,
    );

    const routed = await openai.chat.completions.create({ model: 'openrouter/auto', messages });
    expect((await sdk.generations.getGeneration({ id: routed.id })).data.router).toBe('openrouter/auto');

    const image = { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
    const seen = await openai.chat.completions.create({
      model: 'sim/claude-sonnet',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in these?' }, image, image] }],
    });
    expect((await sdk.generations.getGeneration({ id: seen.id })).data).toMatchObject({ numMediaPrompt: 2, numInputAudioPrompt: 0 });

    const moderated = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages,
      plugins: [{ id: 'moderation' }],
    } as never);
    expect((await sdk.generations.getGeneration({ id: (moderated as { id: string }).id })).data.moderationLatency).toEqual(
      expect.any(Number),
    );

    const question = [{ role: 'user' as const, content: `Cache me (${randomUUID()})` }];
    const miss = await openai.chat.completions.create(
      { model: 'sim/gpt-4o-mini', messages: question },
      { headers: { 'x-service-cache': 'true' } },
    );
    const hit = await openai.chat.completions.create(
      { model: 'sim/gpt-4o-mini', messages: question },
      { headers: { 'x-service-cache': 'true' } },
    );
    expect((await sdk.generations.getGeneration({ id: hit.id })).data.responseCacheSourceId).toBe(miss.id);
  });

  it("records the client's HTTP-Referer, User-Agent, Origin and end user, the web plugin's search results and engine, pages fetched", async () => {
    const headers = { 'HTTP-Referer': 'https://app.example/chat', Origin: 'https://app.example' };
    const chat = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages, user: 'end-user-7' }, { headers });
    const read = await sdk.generations.getGeneration({ id: chat.id });
    expect(read.data).toMatchObject({ httpReferer: 'https://app.example/chat', origin: 'https://app.example', externalUser: 'end-user-7' });
    expect(read.data.userAgent).toMatch(/^OpenAI\/JS /);
    const message = await anthropic.messages.create(
      { model: 'sim/claude-sonnet', max_tokens: 64, messages },
      { headers: { Referer: 'https://other.example/' } },
    );
    const messageRead = (await sdk.generations.getGeneration({ id: message.id })).data;
    expect(messageRead).toMatchObject({ httpReferer: 'https://other.example/', origin: '', numSearchResults: null, numFetches: null });
    expect(messageRead.userAgent).toMatch(/^Anthropic\/JS /);

    const searched = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: 'What is the capital of Atlantis?' }],
      plugins: [{ id: 'web', max_results: 3 }],
    } as never);
    const search = (await sdk.generations.getGeneration({ id: searched.id })).data;
    expect(search.webSearchEngine).toBe('searxng');
    expect(search.numSearchResults).toBeGreaterThan(0);
    expect(search.numSearchResults).toBeLessThanOrEqual(3);

    const page = `${stack.searchSimulatorUrl}/pages/zephyr-language`;
    const fetched = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: `Summarise ${page} and http://169.254.169.254/latest/meta-data please` }],
      plugins: [{ id: 'web-fetch' }],
    } as never);
    // The private address is refused, not fetched: one page read.
    expect((await sdk.generations.getGeneration({ id: fetched.id })).data).toMatchObject({ numFetches: 1, numSearchResults: null });
  });

  it('answers every provider call with its HTTP status and latency (a failed-over first endpoint: 503)', async () => {
    const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini-fallback', messages });
    const { data } = await sdk.generations.getGeneration({ id: completion.id });
    expect(data.providerResponses).toHaveLength(2);
    expect(data.providerResponses![0]).toMatchObject({ modelPermaslug: 'gpt-4o-mini;status=503', status: 503 });
    expect(data.providerResponses![1]).toMatchObject({ status: 200, isByok: false });
    for (const response of data.providerResponses!) expect(response.latency).toBeGreaterThanOrEqual(0);
  });

  it('records the results of a server-tool search on the generation that asked for it', async () => {
    const session = randomUUID();
    await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: 'Search the web for the capital of Atlantis.' }],
      tools: [{ type: 'service:web_search' } as never],
      session_id: session,
    } as never);
    // Both rows are written by the consumer moments after the answer: wait for them (not a timing check).
    let rows: Array<{ id: string }> = [];
    for (let tries = 0; tries < 100 && rows.length < 2; tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      ({ rows } = await database.query<{ id: string }>('SELECT id FROM generations WHERE session_id = $1 ORDER BY created_at, id', [
        session,
      ]));
    }
    expect(rows).toHaveLength(2);
    const [asked, answered] = await Promise.all(rows.map(async (row) => (await sdk.generations.getGeneration({ id: row.id })).data));
    expect(asked!.webSearchEngine).toBe('searxng');
    expect(asked!.numSearchResults).toBeGreaterThan(0);
    expect(answered).toMatchObject({ webSearchEngine: null, numSearchResults: null, numFetches: null });
  });

  it('is readable by every key of the workspace; an intern key reads only what it made', async () => {
    const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages });
    const asManagement = await call(`/generation?id=${completion.id}`, { key: stack.managementKey });
    expect(asManagement.status).toBe(200);
    expect((asManagement.body as { data: { id: string } }).data.id).toBe(completion.id);

    const intern = await call('/interns', { body: { name: 'generations reader' } });
    const internKey = (
      await call('/keys', { key: stack.managementKey, body: { name: 'intern key', intern_id: (intern.body as { id: string }).id } })
    ).body as { key: string };
    const own = await new OpenAI({ apiKey: internKey.key, baseURL: stack.baseUrl, maxRetries: 0 }).chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages,
    });
    expect((await call(`/generation?id=${own.id}`, { key: internKey.key })).status).toBe(200);
    const notItsOwn = await call(`/generation?id=${completion.id}`, { key: internKey.key });
    expect(notItsOwn.status).toBe(404);
    expect(envelopeOf(notItsOwn).metadata).toMatchObject({ reason: 'not_found' });
    // The standard key reads the intern's generation: same workspace.
    expect((await call(`/generation?id=${own.id}`)).status).toBe(200);
  });

  it("answers 404 for another workspace's generation and an unknown id, 400 without an id", async () => {
    const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages });
    await sdk.generations.getGeneration({ id: completion.id });
    const stranger = new OpenRouter({ apiKey: otherWorkspaceKey(), serverURL: stack.baseUrl });
    await expect(stranger.generations.getGeneration({ id: completion.id })).rejects.toBeInstanceOf(NotFoundResponseError);

    const started = Date.now();
    const unknown = await call('/generation?id=gen-unknown');
    expect(unknown.status).toBe(404);
    expect(envelopeOf(unknown).message).toMatch(/generation/i);
    // That a foreign id is not waited for is mayBeInFlight's (generation-view.spec.ts); the delay is the machine's.
    console.log(`unknown generation id answered after ${Date.now() - started} ms`);

    const missing = await call('/generation');
    expect(missing.status).toBe(400);
    expect(envelopeOf(missing).message).toMatch(/id/);
  });

  it('GET /v1/generation/content: 404 `content_not_stored` for a visible generation, `not_found` for one the key cannot see', async () => {
    const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages });
    await expect(sdk.generations.listGenerationContent({ id: completion.id })).rejects.toBeInstanceOf(NotFoundResponseError);
    const content = await call(`/generation/content?id=${completion.id}`);
    expect(content.status).toBe(404);
    expect(envelopeOf(content).metadata).toMatchObject({ reason: 'content_not_stored', retryable: false });
    const unknown = await call('/generation/content?id=gen-unknown');
    expect(envelopeOf(unknown).metadata).toMatchObject({ reason: 'not_found' });
    const stranger = await call(`/generation/content?id=${completion.id}`, { key: otherWorkspaceKey() });
    expect(stranger.status).toBe(404);
    expect(envelopeOf(stranger).metadata).toMatchObject({ reason: 'not_found' });
  });
});
