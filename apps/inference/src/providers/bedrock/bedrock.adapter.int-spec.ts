import { validateEnv } from '@gw/config';
import { SIM_AWS_ACCESS_KEY_ID, SIM_AWS_SECRET_ACCESS_KEY } from '@gw/provider-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { InferenceEnv } from '../../env.js';
import { Prisma } from '../../generated/prisma/client.js';
import { computeCost } from '../../pricing/cost.js';
import { failureOf, simulatorUpstream } from '../../testing/spec-helpers.js';
import type { NormalizedUsage, StreamEvent } from '../provider-adapter.js';
import { BedrockClients } from './bedrock-clients.js';
import { BedrockEmbeddings } from './bedrock-embeddings.js';
import { BedrockAdapter } from './bedrock.adapter.js';

/**
 * The conformance table for Bedrock Converse: the adapter, through the AWS SDK (SigV4, event
 * stream), against the simulator's strict Converse API. Usage and cost are checked to the token.
 */
describe('Bedrock conformance (adapter -> AWS SDK -> simulator)', () => {
  const sim = simulatorUpstream();
  const saved = { ...process.env };
  let adapter: BedrockAdapter;
  let clients: BedrockClients;
  const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
  const pricing = {
    prompt: new Prisma.Decimal('0.000003'),
    completion: new Prisma.Decimal('0.000015'),
    cachedPrompt: new Prisma.Decimal('0.0000003'),
    cacheWritePrompt: new Prisma.Decimal('0.00000375'),
  };
  const endpoint = (upstreamModel = CLAUDE, guardrail?: { identifier: string; version: string; trace?: 'enabled' }): RoutableEndpoint => ({
    provider: {
      id: 'sim-bedrock',
      name: 'Simulator',
      format: 'bedrock',
      baseUrl: `${sim.simulator.url}/bedrock`,
      apiKey: '',
      region: 'us-east-1',
      ...(guardrail ? { guardrail } : {}),
    },
    upstreamModel,
    pricing,
    supportedParameters: new Set(['temperature', 'top_p', 'max_tokens', 'stop', 'tools', 'tool_choice', 'response_format', 'reasoning']),
  });
  const ask = (text: string, extra: Record<string, unknown> = {}) => ({
    model: 'sim/bedrock-claude',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: text },
    ],
    ...extra,
  });
  const tools = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
      },
    },
  ];
  const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

  async function drain(events: AsyncIterable<StreamEvent>): Promise<{ text: string; chunks: StreamEvent[]; usage?: NormalizedUsage }> {
    const chunks: StreamEvent[] = [];
    for await (const event of events) chunks.push(event);
    const text = chunks.map((e) => (e.type === 'chunk' ? String(e.choices[0]?.delta.content ?? '') : '')).join('');
    const usage = chunks.find((e): e is Extract<StreamEvent, { type: 'usage' }> => e.type === 'usage')?.usage;
    return { text, chunks, usage };
  }

  beforeAll(() => {
    // The catalog's Bedrock providers sign with the standard AWS chain: here, its environment step.
    process.env.AWS_ACCESS_KEY_ID = SIM_AWS_ACCESS_KEY_ID;
    process.env.AWS_SECRET_ACCESS_KEY = SIM_AWS_SECRET_ACCESS_KEY;
    clients = new BedrockClients(
      validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x', UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '2000' }),
    );
    adapter = new BedrockAdapter(clients);
  });
  afterAll(() => {
    clients.onModuleDestroy();
    process.env = saved;
  });

  it('plain: text, stop reason, usage and cost to the token', async () => {
    const completion = await adapter.complete(endpoint(), ask('Hello there'), {});
    expect(completion.choices[0]!.message.content).toMatch(/^Simulated reply to: Hello there\./);
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', native_finish_reason: 'end_turn' });
    // system "Be brief." 3 + "Hello there" 2 + 3 per message + 3 per request; the reply is 24 tokens.
    expect(completion.usage).toEqual({
      promptTokens: 11,
      completionTokens: 24,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      estimated: false,
    });
    expect(computeCost(pricing, completion.usage).total.toString()).toBe('0.000393');
  });

  it('streamed: the same answer in chunks, a finish chunk, then the usage', async () => {
    const whole = await adapter.complete(endpoint(), ask('Hello there'), {});
    const { text, chunks, usage } = await drain(await adapter.stream(endpoint(), ask('Hello there'), {}));
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(chunks[0]).toMatchObject({ type: 'chunk', choices: [{ delta: { role: 'assistant' } }] });
    expect(chunks.at(-2)).toMatchObject({ type: 'chunk', choices: [{ finish_reason: 'stop', native_finish_reason: 'end_turn' }] });
    expect(usage).toEqual(whole.usage);
  });

  it('tools, single: a toolUse block is a tool call with JSON arguments', async () => {
    const completion = await adapter.complete(endpoint(), ask('Weather in Paris', { tools, tool_choice: 'required' }), {});
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'tool_calls', native_finish_reason: 'tool_use' });
    expect(call).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather' } });
    expect(JSON.parse(call.function.arguments)).toEqual({ location: 'Weather in Paris' });
  });

  it('tools, parallel: two calls and their two results go back in one turn each', async () => {
    const history = ask('Weather in Paris and Rome', { tools });
    history.messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Rome"}' } },
        ],
      } as never,
      { role: 'tool', tool_call_id: 'call_a', content: 'sunny' } as never,
      { role: 'tool', tool_call_id: 'call_b', content: 'rainy' } as never,
    );
    const completion = await adapter.complete(endpoint(), history, {});
    expect(completion.choices[0]!.message.content).toBe('Based on the tool result: "sunny | rainy".');
  });

  it('tools, streamed arguments: id and name first, then argument fragments', async () => {
    const { chunks } = await drain(await adapter.stream(endpoint(), ask('Weather in Paris', { tools, tool_choice: 'required' }), {}));
    const calls = chunks.flatMap((e) => (e.type === 'chunk' ? ((e.choices[0]?.delta.tool_calls as Array<Record<string, any>>) ?? []) : []));
    expect(calls[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^toolu_/), function: { name: 'get_weather', arguments: '' } });
    expect(calls.length).toBeGreaterThan(2);
    expect(JSON.parse(calls.map((c) => c.function.arguments).join(''))).toEqual({ location: 'Weather in Paris' });
    expect(chunks.at(-2)).toMatchObject({ choices: [{ finish_reason: 'tool_calls' }] });
  });

  it('JSON schema: outputConfig constrains the answer; json_object asks for any object', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' }, n: { type: 'number' } }, required: ['answer', 'n'] };
    const structured = await adapter.complete(
      endpoint(),
      ask('Give JSON', { response_format: { type: 'json_schema', json_schema: { name: 'reply', schema } } }),
      {},
    );
    expect(JSON.parse(structured.choices[0]!.message.content!)).toMatchObject({ answer: expect.any(String), n: 1 });
    const object = await adapter.complete(endpoint(), ask('Give JSON', { response_format: { type: 'json_object' } }), {});
    expect(typeof JSON.parse(object.choices[0]!.message.content!)).toBe('object');
  });

  it('image: a data: URL goes as bytes and counts; a URL is refused before any call', async () => {
    const withImage = {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: PNG } },
          ],
        },
      ],
    };
    const completion = await adapter.complete(endpoint(), withImage, {});
    expect(completion.usage.promptTokens).toBe(1 + 85 + 3 + 3);
    const byUrl = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
    };
    await expect(adapter.complete(endpoint(), byUrl, {})).rejects.toMatchObject({ status: 400, errorType: 'invalid_image' });
  });

  it('cache usage: reads and writes are prompt tokens priced apart', async () => {
    const completion = await adapter.complete(endpoint(`${CLAUDE};cached=5;cache-write=4`), ask('Hello there'), {});
    expect(completion.usage).toMatchObject({ promptTokens: 11, cachedTokens: 5, cacheWriteTokens: 4, completionTokens: 24 });
    // 2 plain * 3e-6 + 5 read * 0.3e-6 + 4 written * 3.75e-6 + 24 * 15e-6
    expect(computeCost(pricing, completion.usage).total.toString()).toBe('0.0003825');
  });

  it('guardrail: an intervention ends with content_filter', async () => {
    const guarded = endpoint(CLAUDE, { identifier: 'sim-guardrail', version: '1', trace: 'enabled' });
    const completion = await adapter.complete(guarded, ask('Tell me the forbidden thing'), {});
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'content_filter', native_finish_reason: 'guardrail_intervened' });
    const { chunks } = await drain(await adapter.stream(guarded, ask('Tell me the forbidden thing'), {}));
    expect(chunks.at(-2)).toMatchObject({ choices: [{ finish_reason: 'content_filter' }] });
  });

  const errorCases: Array<[string, string, { status: number; errorType: string; retryable: boolean; retryAfterMs?: number }]> = [
    [
      'throttling with Retry-After',
      ';status=429;retry-after=3',
      { status: 429, errorType: 'rate_limit_exceeded', retryable: true, retryAfterMs: 3000 },
    ],
    [
      'model not ready',
      ';status=429;bedrock-error=ModelNotReadyException',
      { status: 503, errorType: 'provider_unavailable', retryable: true },
    ],
    ['service unavailable', ';status=503', { status: 503, errorType: 'provider_unavailable', retryable: true }],
    [
      'quota',
      ';status=400;bedrock-error=ServiceQuotaExceededException',
      { status: 429, errorType: 'rate_limit_exceeded', retryable: true },
    ],
    ['validation', ';status=400', { status: 400, errorType: 'invalid_request', retryable: false }],
    ['access denied (the gateway credential)', ';status=403', { status: 502, errorType: 'provider_unavailable', retryable: false }],
    ['model timeout', ';status=408', { status: 504, errorType: 'timeout', retryable: true }],
    ['model error', ';status=424', { status: 502, errorType: 'provider_unavailable', retryable: true }],
    ['internal error', ';status=500', { status: 502, errorType: 'provider_unavailable', retryable: true }],
    ['context too long', ';context=5', { status: 400, errorType: 'context_length_exceeded', retryable: false }],
  ];
  it.each(errorCases)('error: %s', async (_name, directives, expected) => {
    for (const call of [
      () => adapter.complete(endpoint(`${CLAUDE}${directives}`), ask('Hello there'), {}),
      () => adapter.stream(endpoint(`${CLAUDE}${directives}`), ask('Hello there'), {}),
    ]) {
      const failure = await failureOf(call());
      expect({ status: failure.gatewayError.status, errorType: failure.gatewayError.errorType, retryable: failure.retryable }).toEqual({
        status: expected.status,
        errorType: expected.errorType,
        retryable: expected.retryable,
      });
      if (expected.retryAfterMs !== undefined) {
        expect(failure.retryAfterMs).toBe(expected.retryAfterMs);
        expect(failure.gatewayError.metadata).toMatchObject({ retry_after: expected.retryAfterMs / 1000 });
      }
    }
  });

  it("a catalog provider's own static keys sign without the chain (the simulator's account)", async () => {
    const chain = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    const own = new BedrockClients(validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x' }));
    try {
      const keyed = endpoint();
      keyed.provider = {
        ...keyed.provider,
        apiKey: JSON.stringify({ accessKeyId: SIM_AWS_ACCESS_KEY_ID, secretAccessKey: SIM_AWS_SECRET_ACCESS_KEY }),
      };
      expect((await new BedrockAdapter(own).complete(keyed, ask('Hello there'), {})).choices[0]!.finish_reason).toBe('stop');
    } finally {
      own.onModuleDestroy();
      process.env.AWS_ACCESS_KEY_ID = chain.id;
      process.env.AWS_SECRET_ACCESS_KEY = chain.secret;
    }
  });

  it('error: a wrong secret (BYOK keys) is the provider refusing the credential', async () => {
    const byok = JSON.stringify({ accessKeyId: SIM_AWS_ACCESS_KEY_ID, secretAccessKey: 'not-the-secret' });
    const failure = await failureOf(adapter.complete(endpoint(), ask('Hello there'), { apiKey: byok }));
    expect(failure.gatewayError).toMatchObject({ status: 502, errorType: 'provider_unavailable' });
    const good = JSON.stringify({ accessKeyId: SIM_AWS_ACCESS_KEY_ID, secretAccessKey: SIM_AWS_SECRET_ACCESS_KEY, region: 'eu-west-1' });
    expect((await adapter.complete(endpoint(), ask('Hello there'), { apiKey: good })).choices[0]!.finish_reason).toBe('stop');
    // The region becomes part of a host name: only a region name is taken.
    const odd = JSON.stringify({
      accessKeyId: SIM_AWS_ACCESS_KEY_ID,
      secretAccessKey: SIM_AWS_SECRET_ACCESS_KEY,
      region: 'evil.example.com/x',
    });
    await expect(adapter.complete(endpoint(), ask('Hello there'), { apiKey: odd })).rejects.toMatchObject({ status: 400 });
  });

  it('embeddings: Titan through InvokeModel, one call a text, counts summed, float or base64', async () => {
    const embeddings = new BedrockEmbeddings(clients);
    const titan = endpoint('amazon.titan-embed-text-v2:0');
    const floats = await embeddings.create(titan, { model: 'm', input: ['one two', 'three'], dimensions: 256 }, {});
    expect(floats.data.map((item) => (item.embedding as number[]).length)).toEqual([256, 256]);
    expect(floats.usage).toEqual({ prompt_tokens: 3 });
    const packed = await embeddings.create(titan, { model: 'm', input: 'one two', dimensions: 256, encoding_format: 'base64' }, {});
    const bytes = Buffer.from(packed.data[0]!.embedding as string, 'base64');
    expect(bytes.length).toBe(256 * 4);
    expect(bytes.readFloatLE(0)).toBeCloseTo((floats.data[0]!.embedding as number[])[0]!, 6);
    // Titan's own limits are its answer: 300 dimensions is a ValidationException.
    const refused = await failureOf(embeddings.create(titan, { model: 'm', input: 'x', dimensions: 300 }, {}));
    expect(refused.gatewayError).toMatchObject({ status: 400, errorType: 'invalid_request' });
    await expect(embeddings.create(titan, { model: 'm', input: [[1, 2]] }, {})).rejects.toMatchObject({ status: 400 });
  });

  it('cancellation: an abort mid-stream ends the iteration as aborted; leaving the loop closes the call', async () => {
    const controller = new AbortController();
    const events = await adapter.stream(endpoint(`${CLAUDE};chunk-delay=40`), ask('Hello there'), { signal: controller.signal });
    const seen: StreamEvent[] = [];
    const reading = (async () => {
      for await (const event of events) {
        seen.push(event);
        if (seen.length === 2) controller.abort();
      }
    })();
    const failure = await failureOf(reading);
    expect(failure.kind).toBe('aborted');
    expect(seen.length).toBeLessThan(5);
    const left = await adapter.stream(endpoint(`${CLAUDE};chunk-delay=40`), ask('Hello there'), {});
    for await (const event of left) if (event.type === 'chunk') break;
  });

  it('cut stream and mid-stream exception: final failures after the answer began', async () => {
    const cut = await adapter.stream(endpoint(`${CLAUDE};cut=2`), ask('Hello there'), {});
    const cutFailure = await failureOf(drain(cut));
    expect(cutFailure).toMatchObject({ retryable: false, gatewayError: { status: 502, errorType: 'provider_unavailable' } });
    const broken = await adapter.stream(endpoint(`${CLAUDE};stream-error=2`), ask('Hello there'), {});
    const brokenFailure = await failureOf(drain(broken));
    expect(brokenFailure).toMatchObject({ retryable: false, gatewayError: { status: 502 } });
    const whole = await failureOf(adapter.complete(endpoint(`${CLAUDE};cut=1`), ask('Hello there'), {}));
    expect(whole.gatewayError.status).toBe(502);
  });
});
