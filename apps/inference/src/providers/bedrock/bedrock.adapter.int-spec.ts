import { validateEnv } from '@gw/config';
import { SIM_AWS_ACCESS_KEY_ID, SIM_AWS_SECRET_ACCESS_KEY } from '@gw/provider-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { InferenceEnv } from '../../env.js';
import { Prisma } from '../../generated/prisma/client.js';
import { failureOf, simulatorUpstream } from '../../testing/spec-helpers.js';
import type { NormalizedUsage, StreamEvent } from '../provider-adapter.js';
import { BedrockClients } from './bedrock-clients.js';
import { BedrockEmbeddings } from './bedrock-embeddings.js';
import { BedrockAdapter } from './bedrock.adapter.js';

/**
 * What is Bedrock's own, beside the conformance table (conformance/, which runs every common case
 * on this adapter): its stop reasons, its own exceptions, JSON mode, image URLs, the AWS
 * credential chain, BYOK keys and regions, Titan embeddings.
 */
describe('Bedrock adapter specifics (adapter -> AWS SDK -> simulator)', () => {
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

  it("finish reasons carry Bedrock's stop reason as native_finish_reason, streamed or not", async () => {
    const plain = await adapter.complete(endpoint(), ask('Hello there'), {});
    expect(plain.choices[0]).toMatchObject({ finish_reason: 'stop', native_finish_reason: 'end_turn' });
    const { chunks, usage } = await drain(await adapter.stream(endpoint(), ask('Hello there'), {}));
    expect(chunks.at(-2)).toMatchObject({ type: 'chunk', choices: [{ finish_reason: 'stop', native_finish_reason: 'end_turn' }] });
    expect(usage).toEqual(plain.usage);
    const called = await adapter.complete(endpoint(), ask('Weather in Paris', { tools, tool_choice: 'required' }), {});
    expect(called.choices[0]).toMatchObject({ finish_reason: 'tool_calls', native_finish_reason: 'tool_use' });
    const guarded = endpoint(CLAUDE, { identifier: 'sim-guardrail', version: '1', trace: 'enabled' });
    const blocked = await adapter.complete(guarded, ask('Tell me the forbidden thing'), {});
    expect(blocked.choices[0]).toMatchObject({ finish_reason: 'content_filter', native_finish_reason: 'guardrail_intervened' });
  });

  it('JSON mode: json_object asks for any object', async () => {
    const object = await adapter.complete(endpoint(), ask('Give JSON', { response_format: { type: 'json_object' } }), {});
    expect(typeof JSON.parse(object.choices[0]!.message.content!)).toBe('object');
  });

  it('image: a URL (not a data: URL) is refused before any call, Converse taking bytes only', async () => {
    const byUrl = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
    };
    await expect(adapter.complete(endpoint(), byUrl, {})).rejects.toMatchObject({ status: 400, errorType: 'invalid_image' });
  });

  /** Bedrock's exceptions that have no counterpart in the other providers' tables. */
  const errorCases: Array<[string, string, { status: number; errorType: string; retryable: boolean }]> = [
    [
      'model not ready',
      ';status=429;bedrock-error=ModelNotReadyException',
      { status: 503, errorType: 'provider_unavailable', retryable: true },
    ],
    ['validation', ';status=400', { status: 400, errorType: 'invalid_request', retryable: false }],
    ['model error', ';status=424', { status: 502, errorType: 'provider_unavailable', retryable: true }],
  ];
  it.each(errorCases)('error of its own: %s', async (_name, directives, expected) => {
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
    }
  });

  it("clock skew: a host clock 10 minutes off AWS's is corrected from the first refusal's Date, and the call goes through", async () => {
    const clock = (offsetMs: number) => fetch(`${sim.simulator.url}/sim/aws/clock`, { method: 'POST', body: JSON.stringify({ offsetMs }) });
    // Each direction, from a client that has not seen AWS's clock yet (a region of its own), streamed and not.
    for (const [offsetMs, region, streamRegion] of [
      [10 * 60 * 1000, 'eu-west-3', 'eu-west-2'],
      [-10 * 60 * 1000, 'ap-south-2', 'ap-south-1'],
    ] as const) {
      await clock(offsetMs);
      try {
        const skewed = { ...endpoint(), provider: { ...endpoint().provider, region } };
        expect((await adapter.complete(skewed, ask('Hello there'), {})).choices[0]!.finish_reason).toBe('stop');
        const fresh = { ...skewed, provider: { ...skewed.provider, region: streamRegion } };
        const streamed = await drain(await adapter.stream(fresh, ask('Hello there'), {}));
        expect(streamed.text.length).toBeGreaterThan(0);
      } finally {
        await clock(0);
      }
    }
  });

  it('a catalog provider without keys signs with the AWS chain (its environment step)', async () => {
    expect(endpoint().provider.apiKey).toBe('');
    expect((await adapter.complete(endpoint(), ask('Hello there'), {})).choices[0]!.finish_reason).toBe('stop');
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
});
