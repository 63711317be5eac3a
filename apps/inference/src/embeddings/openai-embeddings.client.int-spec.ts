import { startSimulator, type RunningSimulator } from '@gw/provider-simulator';
import { validateEnv } from '@gw/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import { InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import { UpstreamClient } from '../upstream/upstream-client.js';
import { UpstreamFailure } from '../upstream/upstream-failure.js';
import { OpenAiEmbeddingsClient } from './openai-embeddings.client.js';

/** The embeddings call against the simulator's OpenAI `/embeddings` over real HTTP. */
describe('OpenAiEmbeddingsClient against the provider simulator', () => {
  let simulator: RunningSimulator;
  let upstream: UpstreamClient;
  let client: OpenAiEmbeddingsClient;
  const pricing = { prompt: new Prisma.Decimal(0), completion: new Prisma.Decimal(0), cachedPrompt: new Prisma.Decimal(0) };
  const endpoint = (upstreamModel: string, format: 'openai' | 'anthropic' = 'openai'): RoutableEndpoint => ({
    provider: { id: 'sim', name: 'Simulator', format, baseUrl: `${simulator.url}/openai/v1`, apiKey: 'sk-sim' },
    upstreamModel,
    pricing,
    supportedParameters: new Set([
      'temperature',
      'top_p',
      'max_tokens',
      'stop',
      'seed',
      'n',
      'logprobs',
      'top_logprobs',
      'tools',
      'tool_choice',
      'parallel_tool_calls',
      'response_format',
      'reasoning',
    ]),
  });

  async function failureOf(promise: Promise<unknown>): Promise<UpstreamFailure> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UpstreamFailure);
    return error as UpstreamFailure;
  }

  beforeAll(async () => {
    simulator = await startSimulator();
    upstream = new UpstreamClient(validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x' }));
    client = new OpenAiEmbeddingsClient(upstream);
  });

  afterAll(async () => {
    await upstream?.onModuleDestroy();
    await simulator?.close();
  });

  it('returns float vectors of the asked dimensions, one per input, with the prompt tokens', async () => {
    const result = await client.create(
      endpoint('text-embedding-3-small'),
      { model: 'public/id', input: ['Hello, world!', 'second'], dimensions: 8 },
      {},
    );
    expect(result.data.map((item) => item.index)).toEqual([0, 1]);
    expect(result.data.every((item) => Array.isArray(item.embedding) && item.embedding.length === 8)).toBe(true);
    expect(result.usage?.prompt_tokens).toBe(5);
  });

  it('returns base64 vectors that decode to the same float32 values', async () => {
    const body = { model: 'x', input: 'Hello, world!', dimensions: 4 };
    const floats = await client.create(endpoint('text-embedding-3-small'), body, {});
    const base64 = await client.create(endpoint('text-embedding-3-small'), { ...body, encoding_format: 'base64' }, {});
    const bytes = Buffer.from(base64.data[0]!.embedding as string, 'base64');
    const decoded = Array.from({ length: 4 }, (_, i) => bytes.readFloatLE(i * 4));
    (floats.data[0]!.embedding as number[]).forEach((value, i) => expect(decoded[i]).toBeCloseTo(value, 6));
  });

  it('maps provider errors: context length, 429, and a provider format without embeddings', async () => {
    const tooLong = await failureOf(
      client.create(endpoint('text-embedding-3-small;context=2'), { model: 'x', input: 'one two three' }, {}),
    );
    expect(tooLong.gatewayError).toMatchObject({ status: 400, errorType: 'context_length_exceeded' });
    const limited = await failureOf(client.create(endpoint('text-embedding-3-small;status=429'), { model: 'x', input: 'a' }, {}));
    expect(limited).toMatchObject({ retryable: true });
    expect(limited.gatewayError.errorType).toBe('rate_limit_exceeded');
    const anthropic = await failureOf(client.create(endpoint('claude', 'anthropic'), { model: 'x', input: 'a' }, {}));
    expect(anthropic.gatewayError.message).toMatch(/has no embeddings endpoint/);
  });
});
