import { OpenRouter } from '@openrouter/sdk';
import OpenAI, { APIError } from 'openai';
import pg from 'pg';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeOf, stack } from './e2e-helpers.js';

const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const messages = [{ role: 'user' as const, content: 'Tell me about gateways' }];

type Chunk = ChatCompletionChunk & {
  provider?: string;
  usage?: Record<string, any> | null;
  choices: Array<ChatCompletionChunk.Choice & { native_finish_reason?: string | null }>;
};

/** Every chunk the openai client yields, or the error its iteration threw after them. */
async function iterate(stream: AsyncIterable<ChatCompletionChunk>): Promise<{ chunks: Chunk[]; error?: unknown }> {
  const chunks: Chunk[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Chunk);
  } catch (error) {
    return { chunks, error };
  }
  return { chunks };
}

const contentOf = (chunks: Chunk[]) => chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');

/** A raw streamed POST through fetch: status, headers and the exact bytes of the body. */
async function postStream(body: Record<string, unknown>): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${stack.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ stream: true, messages, ...body }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('POST /v1/chat/completions with stream: true', () => {
  it('streams chat.completion.chunk objects with the generation id, the public model and the provider', async () => {
    const { chunks, error } = await iterate(await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages, stream: true }));
    expect(error).toBeUndefined();
    expect(chunks.length).toBeGreaterThan(3);
    const ids = new Set(chunks.map((chunk) => chunk.id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^gen-/);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({
        object: 'chat.completion.chunk',
        model: 'sim/gpt-4o-mini',
        provider: 'Simulator',
        system_fingerprint: 'fp_sim',
      });
      expect(Number.isInteger(chunk.created)).toBe(true);
    }
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(contentOf(chunks)).toMatch(/^Simulated reply to: Tell me about gateways/);
    expect(chunks.at(-1)!.choices[0]).toMatchObject({ finish_reason: 'stop', native_finish_reason: 'stop' });
    // No usage chunk unless the client asks for one.
    expect(chunks.every((chunk) => chunk.choices.length > 0 && !chunk.usage)).toBe(true);
  });

  it('ends with a usage chunk priced like the non-streamed usage when include_usage is set', async () => {
    const { chunks } = await iterate(
      await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } }),
    );
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.id).toBe(chunks[0]!.id);
    const usage = last.usage!;
    expect(Number.isInteger(usage.prompt_tokens) && usage.prompt_tokens > 0).toBe(true);
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.00000015 + usage.completion_tokens * 0.0000006, 12);
    expect(usage.is_byok).toBe(false);
    expect(usage.cost_details).toMatchObject({ upstream_inference_cost: null });
    expect(usage.cost_details.upstream_inference_completions_cost).toBeCloseTo(usage.completion_tokens * 0.0000006, 12);

    const whole = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages });
    expect(usage.prompt_tokens).toBe(whole.usage!.prompt_tokens);
    expect(usage.completion_tokens).toBe(whole.usage!.completion_tokens);
  });

  it('streams tool-call deltas the client reassembles into the call', async () => {
    const { chunks } = await iterate(
      await openai.chat.completions.create({
        model: 'sim/gpt-4o-mini',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [
          {
            type: 'function',
            function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
          },
        ],
        stream: true,
      }),
    );
    const fragments = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(fragments[0]).toMatchObject({ index: 0, id: expect.any(String), type: 'function', function: { name: 'get_weather' } });
    expect(fragments.length).toBeGreaterThan(2);
    const args = fragments.map((fragment) => fragment.function?.arguments ?? '').join('');
    expect(JSON.parse(args)).toEqual({ city: 'Weather in Paris?' });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('frames the stream exactly as OpenAI does: data lines, a blank line after each, [DONE] last', async () => {
    const { status, headers, text } = await postStream({ model: 'sim/gpt-4o-mini', stream_options: { include_usage: true } });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(headers.get('cache-control')).toBe('no-cache');
    expect(headers.get('x-accel-buffering')).toBe('no');
    expect(text).toMatch(/^(data: \{[^\n]*\}\n\n)+data: \[DONE\]\n\n$/);
    const events = text.split('\n\n').filter(Boolean);
    for (const event of events.slice(0, -1))
      expect(JSON.parse(event.slice('data: '.length))).toHaveProperty('object', 'chat.completion.chunk');
  });

  it("reports one set of timings, the answering attempt's, after a fallback", async () => {
    const { text } = await postStream({ model: 'sim/gpt-4o-mini-fallback', debug: {} });
    const events = text.split('\n\n').filter(Boolean);
    const last = JSON.parse(events.at(-2)!.slice('data: '.length));
    const timings = last.debug.timings as Array<{ event: string }>;
    expect(timings.map((timing) => timing.event)).toEqual([
      'adapter_request',
      'upstream_headers_received',
      'first_token_received',
      'upstream_body_ended',
    ]);
  });

  it('echoes the upstream body first and reports timings last when the request asks for debug', async () => {
    const { status, text } = await postStream({ model: 'sim/gpt-4o-mini', debug: { echo_upstream_body: true }, user: 'alice@example.com' });
    expect(status).toBe(200);
    const events = text.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)));
    const echo = chunks[0];
    expect(echo.choices).toEqual([]);
    expect(echo.debug.echo_upstream_body).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages,
    });
    expect(echo.debug.echo_upstream_body).not.toHaveProperty('debug');
    expect(echo.debug.echo_upstream_body.user).toMatch(/^[0-9a-f]{32}$/); // hashed, never the raw id
    const timings = chunks.at(-1).debug.timings as Array<{ start_ms: number; event: string; epoch_ms: number }>;
    expect(chunks.at(-1).choices).toEqual([]);
    expect(timings.map((timing) => timing.event)).toEqual([
      'adapter_request',
      'upstream_headers_received',
      'first_token_received',
      'upstream_body_ended',
    ]);
    for (let i = 1; i < timings.length; i++) expect(timings[i]!.start_ms).toBeGreaterThanOrEqual(timings[i - 1]!.start_ms);
    expect(chunks.slice(1, -1).every((chunk) => !('debug' in chunk))).toBe(true);

    const plain = await postStream({ model: 'sim/gpt-4o-mini' });
    expect(plain.text).not.toContain('"debug"');
  });

  it('falls back before the first byte: the first endpoint answers 503, the second streams', async () => {
    const { chunks, error } = await iterate(
      await openai.chat.completions.create({
        model: 'sim/gpt-4o-mini-fallback',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(error).toBeUndefined();
    expect(contentOf(chunks)).toMatch(/^Simulated reply/);
    // The second endpoint's prices apply: 0.0000002 prompt, 0.0000008 completion.
    const usage = chunks.at(-1)!.usage!;
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.0000002 + usage.completion_tokens * 0.0000008, 12);
  });

  it('puts routing metadata on the first chunk only when the caller opts in', async () => {
    const optedIn = await openai.chat.completions.create(
      { model: 'sim/gpt-4o-mini-fallback', messages, stream: true },
      { headers: { 'x-service-metadata': 'enabled' } },
    );
    const { chunks } = await iterate(optedIn);
    const metadata = (chunks[0] as unknown as { service_metadata?: Record<string, any> }).service_metadata;
    expect(metadata).toMatchObject({ requested: 'sim/gpt-4o-mini-fallback', attempt: expect.any(Number), is_byok: false });
    expect(chunks.slice(1).every((chunk) => !('service_metadata' in chunk))).toBe(true);

    const { chunks: plain } = await iterate(await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages, stream: true }));
    expect(plain.every((chunk) => !('service_metadata' in chunk))).toBe(true);
  });

  it('answers a failure before the first chunk with the JSON envelope and its status, not a stream', async () => {
    const raw = await postStream({ model: 'nope/model' });
    expect(raw.status).toBe(404);
    expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
    expect(envelopeOf({ status: raw.status, body: JSON.parse(raw.text) }).metadata?.error_type).toBe('not_found');

    const error = await openai.chat.completions.create({ model: 'nope/model', messages, stream: true }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(404);
  });

  it('answers a provider stream that held no chunk at all with a 502 envelope, not a 200 with only [DONE]', async () => {
    const raw = await postStream({ model: 'sim/gpt-4o-mini-empty' });
    expect(raw.status).toBe(502);
    expect(raw.text).not.toContain('[DONE]');
    expect(envelopeOf({ status: raw.status, body: JSON.parse(raw.text) }).metadata?.error_type).toBe('provider_unavailable');
  });

  it('moves on to the next endpoint when the first streams nothing', async () => {
    const { chunks, error } = await iterate(
      await openai.chat.completions.create({ model: 'sim/gpt-4o-mini-empty-then-ok', messages, stream: true }),
    );
    expect(error).toBeUndefined();
    expect(chunks[0]!.provider).toBe('Simulator B');
    expect(contentOf(chunks)).toMatch(/^Simulated reply to/);
  });

  it.each([
    ['a connection cut', 'sim/gpt-4o-mini-cut', 502, 'provider_unavailable'],
    ["the provider's error event", 'sim/gpt-4o-mini-stream-error', 502, 'provider_unavailable'],
  ])('ends a stream broken by %s with an error event and no [DONE], so the openai client throws', async (_name, model, code, errorType) => {
    const { chunks, error } = await iterate(await openai.chat.completions.create({ model, messages, stream: true }));
    expect(contentOf(chunks).length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toMatchObject({ code, metadata: { error_type: errorType } });

    const { status, text } = await postStream({ model });
    expect(status).toBe(200);
    expect(text).not.toContain('[DONE]');
    const events = text.split('\n\n').filter(Boolean);
    const last = JSON.parse(events.at(-1)!.slice('data: '.length));
    // OpenRouter's mid-stream error: a chunk of the same stream whose choice finishes with `error`.
    const firstChunk = JSON.parse(events[0]!.slice('data: '.length));
    expect(last).toEqual({
      id: firstChunk.id,
      object: 'chat.completion.chunk',
      created: firstChunk.created,
      model,
      provider: 'Simulator',
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error', native_finish_reason: null }],
      error: { code, message: expect.any(String), metadata: expect.objectContaining({ error_type: errorType }) },
    });
    expect(events.slice(0, -1).every((event) => !('error' in JSON.parse(event.slice('data: '.length))))).toBe(true);
  });

  it('aborts the provider call when the client goes away mid-stream', async () => {
    const upstreamModel = 'gpt-4o-mini;chunk-delay=100;reply-tokens=120';
    const statsOf = async () =>
      (await fetch(`${stack.simulatorUrl}/sim/streams?key=${encodeURIComponent(upstreamModel)}`)).json() as Promise<{
        started: number;
        finished: number;
        abandoned: number;
        framesSent: number;
      }>;
    const before = await statsOf();
    const controller = new AbortController();
    const response = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim/gpt-4o-mini-slow', messages, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^data: /);
    controller.abort();

    // 40 content chunks at 100 ms would take 4 s: that it stopped early is shown by `finished` 0 and the
    // frames sent, not by a clock (the wait is bounded for a loaded machine).
    const deadline = Date.now() + 30_000;
    let after = await statsOf();
    while (after.abandoned === before.abandoned && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await statsOf();
    }
    expect(after.started - before.started).toBe(1);
    expect(after.abandoned - before.abandoned).toBe(1);
    expect(after.finished - before.finished).toBe(0);
    expect(after.framesSent - before.framesSent).toBeLessThan(20);
  });
});

describe('stream: true through the OpenRouter SDK', () => {
  const sdk = new OpenRouter({ apiKey: stack.apiKey, serverURL: stack.baseUrl });

  /** Every chunk the SDK parses (it validates each against its schema), or what it threw. */
  async function sdkChunks(model: string): Promise<{ chunks: Array<Record<string, any>>; error?: unknown }> {
    const chunks: Array<Record<string, any>> = [];
    try {
      const stream = await sdk.chat.send({ chatRequest: { model, messages, stream: true, streamOptions: { includeUsage: true } } });
      for await (const chunk of stream as AsyncIterable<Record<string, any>>) chunks.push(chunk);
    } catch (error) {
      return { chunks, error };
    }
    return { chunks };
  }

  it('parses every chunk, the usage chunk included', async () => {
    const { chunks, error } = await sdkChunks('sim/gpt-4o-mini');
    expect(error).toBeUndefined();
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toMatch(/^Simulated reply to: Tell me about gateways/);
    expect(chunks.at(-1)!.usage).toMatchObject({ promptTokens: expect.any(Number), completionTokens: expect.any(Number) });
  });

  it('gets a mid-stream failure as OpenRouter sends it: a last chunk with error and finish_reason error', async () => {
    const { chunks, error } = await sdkChunks('sim/gpt-4o-mini-cut');
    expect(error).toBeUndefined();
    const last = chunks.at(-1)!;
    expect(last.error).toMatchObject({ code: 502, message: expect.any(String), metadata: { errorType: 'provider_unavailable' } });
    expect(last.choices[0]).toMatchObject({ finishReason: 'error' });
    expect(last.id).toBe(chunks[0]!.id);
  });
});

describe('streamed generations in the usage record', () => {
  const database = new pg.Client({ connectionString: stack.inferenceDatabaseUrl });

  beforeAll(() => database.connect());
  afterAll(() => database.end());

  interface GenerationRow {
    status: string;
    prompt_tokens: number;
    completion_tokens: number;
    tokens_estimated: boolean;
    cost: string;
  }

  /** The generation record, written off the request path from the usage event (polls briefly). */
  async function generation(id: string): Promise<GenerationRow | undefined> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const { rows } = await database.query<GenerationRow>(
        'SELECT status, prompt_tokens, completion_tokens, tokens_estimated, cost::text AS cost FROM generations WHERE id = $1',
        [id],
      );
      if (rows[0]) return rows[0];
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return undefined;
  }

  it("records a finished stream once, with the provider's counts and the cost of its usage chunk", async () => {
    const { chunks } = await iterate(
      await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } }),
    );
    const usage = chunks.at(-1)!.usage!;
    const row = await generation(chunks[0]!.id);
    expect(row).toMatchObject({
      status: 'succeeded',
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      tokens_estimated: false,
    });
    expect(Number(row!.cost)).toBeCloseTo(usage.cost, 12);
  });

  it('records a stream cut mid-way as failed, with estimated counts for what was generated', async () => {
    const { chunks, error } = await iterate(await openai.chat.completions.create({ model: 'sim/gpt-4o-mini-cut', messages, stream: true }));
    expect(error).toBeInstanceOf(APIError);
    const row = await generation(chunks[0]!.id);
    expect(row).toMatchObject({ status: 'failed', tokens_estimated: true });
    expect(row!.completion_tokens).toBeGreaterThan(0);
    expect(row!.prompt_tokens).toBeGreaterThan(0);
    expect(Number(row!.cost)).toBeGreaterThan(0);
  });
});
