import { validateEnv } from '@gw/config';
import { SIM_AZURE_API_KEY } from '@gw/provider-simulator';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { OpenAiEmbeddingsClient } from '../../embeddings/openai-embeddings.client.js';
import { InferenceEnv } from '../../env.js';
import { Prisma } from '../../generated/prisma/client.js';
import { computeCost } from '../../pricing/cost.js';
import { failureOf, SIMULATOR_PARAMETERS, simulatorUpstream } from '../../testing/spec-helpers.js';
import { UpstreamClient } from '../../upstream/upstream-client.js';
import type { NormalizedUsage, StreamEvent } from '../provider-adapter.js';
import { AzureOpenAiAdapter } from './azure.adapter.js';

/**
 * The conformance table for Azure OpenAI: the adapter (the OpenAI codec at Azure's URLs, with its
 * api-key) against the simulator's Azure routes, which check the key and the api-version.
 */
describe('Azure OpenAI conformance (adapter -> simulator)', () => {
  const sim = simulatorUpstream();
  let adapter: AzureOpenAiAdapter;
  const pricing = {
    prompt: new Prisma.Decimal('0.00000015'),
    completion: new Prisma.Decimal('0.0000006'),
    cachedPrompt: new Prisma.Decimal('0.000000075'),
  };
  const endpoint = (deployment = 'gpt-4o-mini-prod', options: { apiVersion?: string | null; apiKey?: string } = {}): RoutableEndpoint => ({
    provider: {
      id: 'sim-azure',
      name: 'Simulator',
      format: 'azure',
      baseUrl: `${sim.simulator.url}/azure`,
      apiKey: options.apiKey ?? SIM_AZURE_API_KEY,
      ...(options.apiVersion === null ? {} : { apiVersion: options.apiVersion ?? '2024-10-21' }),
    },
    upstreamModel: deployment,
    pricing,
    supportedParameters: new Set([...SIMULATOR_PARAMETERS, 'user']),
  });
  const ask = (text: string, extra: Record<string, unknown> = {}) => ({
    model: 'sim/azure',
    messages: [{ role: 'user', content: text }],
    ...extra,
  });
  const tools = [
    { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } },
  ];

  async function drain(events: AsyncIterable<StreamEvent>): Promise<{ text: string; chunks: StreamEvent[]; usage?: NormalizedUsage }> {
    const chunks: StreamEvent[] = [];
    for await (const event of events) chunks.push(event);
    const text = chunks.map((e) => (e.type === 'chunk' ? String(e.choices[0]?.delta.content ?? '') : '')).join('');
    return { text, chunks, usage: chunks.find((e): e is Extract<StreamEvent, { type: 'usage' }> => e.type === 'usage')?.usage };
  }

  beforeAll(() => {
    adapter = new AzureOpenAiAdapter(sim.upstream);
  });

  it('plain, on a deployment by name and on the v1 API: usage and cost to the token', async () => {
    for (const target of [endpoint(), endpoint('gpt-4o-mini-prod', { apiVersion: null })]) {
      const completion = await adapter.complete(target, ask('Hello there'), {});
      expect(completion.choices[0]!.message.content).toMatch(/^Simulated reply to: Hello there\./);
      expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop' });
      expect(completion.usage).toMatchObject({ promptTokens: 8, completionTokens: 24, cachedTokens: 0, estimated: false });
      expect(computeCost(pricing, completion.usage).total.toString()).toBe('0.0000156');
    }
  });

  it('streamed: the same answer, and the usage Azure sends with include_usage', async () => {
    const whole = await adapter.complete(endpoint(), ask('Hello there'), {});
    const { text, usage } = await drain(await adapter.stream(endpoint(), ask('Hello there'), {}));
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(usage).toEqual(whole.usage);
  });

  it('tools: a call, and its arguments streamed in fragments', async () => {
    const completion = await adapter.complete(endpoint(), ask('Weather in Paris', { tools, tool_choice: 'required' }), {});
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'tool_calls' });
    expect(JSON.parse(completion.choices[0]!.message.tool_calls![0]!.function.arguments)).toEqual({ location: 'Weather in Paris' });
    const { chunks } = await drain(await adapter.stream(endpoint(), ask('Weather in Paris', { tools, tool_choice: 'required' }), {}));
    const calls = chunks.flatMap((e) => (e.type === 'chunk' ? ((e.choices[0]?.delta.tool_calls as Array<Record<string, any>>) ?? []) : []));
    expect(JSON.parse(calls.map((c) => c.function.arguments ?? '').join(''))).toEqual({ location: 'Weather in Paris' });
  });

  it('JSON schema: the answer is an object of that schema', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const completion = await adapter.complete(
      endpoint(),
      ask('Give JSON', { response_format: { type: 'json_schema', json_schema: { name: 'r', schema } } }),
      {},
    );
    expect(JSON.parse(completion.choices[0]!.message.content!)).toMatchObject({ answer: expect.any(String) });
  });

  it('cache usage: cached tokens priced apart', async () => {
    const completion = await adapter.complete(endpoint('gpt-4o-mini;cached=4'), ask('Hello there'), {});
    expect(completion.usage).toMatchObject({ promptTokens: 8, cachedTokens: 4 });
    expect(computeCost(pricing, completion.usage).total.toString()).toBe('0.0000153');
  });

  it('content filter: a filtered answer ends content_filter, a filtered prompt is a content_policy_violation', async () => {
    const output = await adapter.complete(endpoint('gpt;content-filter=output'), ask('Hello there'), {});
    expect(output.choices[0]!.finish_reason).toBe('content_filter');
    const { chunks } = await drain(await adapter.stream(endpoint('gpt;content-filter=output'), ask('Hello there'), {}));
    expect(chunks.some((e) => e.type === 'chunk' && e.choices[0]?.finish_reason === 'content_filter')).toBe(true);
    const prompt = await failureOf(adapter.complete(endpoint('gpt;content-filter=prompt'), ask('Hello there'), {}));
    expect(prompt.gatewayError).toMatchObject({ status: 400, errorType: 'content_policy_violation' });
  });

  const errorCases: Array<
    [string, RoutableEndpoint | (() => RoutableEndpoint), { status: number; errorType: string; retryable: boolean; retryAfterMs?: number }]
  > = [
    [
      'rate limit with Retry-After',
      () => endpoint('gpt;status=429;retry-after=6'),
      { status: 429, errorType: 'rate_limit_exceeded', retryable: true, retryAfterMs: 6000 },
    ],
    ['wrong api-key', () => endpoint('gpt', { apiKey: 'nope' }), { status: 502, errorType: 'provider_unavailable', retryable: false }],
    [
      'unsupported api-version',
      () => endpoint('gpt', { apiVersion: '2019-01-01' }),
      { status: 400, errorType: 'invalid_request', retryable: false },
    ],
    ['context too long', () => endpoint('gpt;context=3'), { status: 400, errorType: 'context_length_exceeded', retryable: false }],
    ['overloaded', () => endpoint('gpt;status=503'), { status: 503, errorType: 'provider_unavailable', retryable: true }],
    ['server error', () => endpoint('gpt;status=500'), { status: 502, errorType: 'provider_unavailable', retryable: true }],
  ];
  it.each(errorCases)('error: %s', async (_name, target, expected) => {
    const resolved = typeof target === 'function' ? target() : target;
    for (const call of [() => adapter.complete(resolved, ask('Hello there'), {}), () => adapter.stream(resolved, ask('Hello there'), {})]) {
      const failure = await failureOf(call());
      expect({ status: failure.gatewayError.status, errorType: failure.gatewayError.errorType, retryable: failure.retryable }).toEqual({
        status: expected.status,
        errorType: expected.errorType,
        retryable: expected.retryable,
      });
      if (expected.retryAfterMs !== undefined) expect(failure.retryAfterMs).toBe(expected.retryAfterMs);
    }
  });

  it('cut stream: a final failure once the answer began', async () => {
    const failure = await failureOf(drain(await adapter.stream(endpoint('gpt;cut=2'), ask('Hello there'), {})));
    expect(failure).toMatchObject({ retryable: false, gatewayError: { status: 502 } });
  });

  describe("BYOK: the workspace's own resource, deployment and key", () => {
    const own = (endpointUrl: string, deployment = 'my-deployment') =>
      JSON.stringify({ apiKey: SIM_AZURE_API_KEY, endpoint: endpointUrl, deployment });
    const env = (allowed: string) => validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x', BYOK_ALLOWED_ORIGINS: allowed });

    it('a plain key uses the catalog resource; a JSON credential its own endpoint and deployment', async () => {
      const plain = await adapter.complete(endpoint(), ask('Hello there'), { apiKey: SIM_AZURE_API_KEY });
      expect(plain.choices[0]!.finish_reason).toBe('stop');
      const upstream = new UpstreamClient(env(sim.simulator.url));
      try {
        // The catalog deployment would fail (status=401): the credential's own deployment answers.
        const completion = await new AzureOpenAiAdapter(upstream).complete(endpoint('gpt;status=401'), ask('Hello there'), {
          apiKey: own(`${sim.simulator.url}/azure`),
        });
        expect(completion.choices[0]!.finish_reason).toBe('stop');
      } finally {
        await upstream.onModuleDestroy();
      }
    });

    it('refuses a loopback or private endpoint unless the operator allowed its origin', async () => {
      const port = new URL(sim.simulator.url).port;
      const upstream = new UpstreamClient(env(''));
      try {
        const guarded = new AzureOpenAiAdapter(upstream);
        for (const target of [`${sim.simulator.url}/azure`, `http://localhost:${port}/azure`, 'http://169.254.169.254', 'http://[::1]:1']) {
          for (const call of [
            () => guarded.complete(endpoint(), ask('Hello there'), { apiKey: own(target) }),
            () => guarded.stream(endpoint(), ask('Hello there'), { apiKey: own(target) }),
          ]) {
            const failure = await failureOf(call());
            expect(failure.gatewayError).toMatchObject({ status: 400, errorType: 'invalid_request' });
            expect(failure.gatewayError.message).toMatch(/private, loopback or link-local/);
          }
        }
      } finally {
        await upstream.onModuleDestroy();
      }
      await expect(adapter.complete(endpoint(), ask('Hello there'), { apiKey: own('ftp://x') })).rejects.toMatchObject({ status: 400 });
      await expect(
        adapter.complete(endpoint(), ask('Hello there'), { apiKey: own(`${sim.simulator.url}/azure?x=1`) }),
      ).rejects.toMatchObject({ status: 400 });
    });
  });

  it('embeddings on a deployment, billed by the prompt tokens Azure reports', async () => {
    const embeddings = await new OpenAiEmbeddingsClient(sim.upstream).create(
      endpoint('embed-small'),
      { model: 'm', input: ['one two', 'three'] },
      {},
    );
    expect(embeddings.data).toHaveLength(2);
    expect(embeddings.usage).toMatchObject({ prompt_tokens: 3 });
  });
});
