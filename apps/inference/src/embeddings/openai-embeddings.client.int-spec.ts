import { beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import { failureOf, simulatorEndpoint, simulatorUpstream } from '../testing/spec-helpers.js';
import { EntraAccessTokens } from '../providers/azure/entra-access-tokens.js';
import { OpenAiEmbeddingsClient } from './openai-embeddings.client.js';

/** The embeddings call against the simulator's OpenAI `/embeddings` over real HTTP. */
describe('OpenAiEmbeddingsClient against the provider simulator', () => {
  const sim = simulatorUpstream();
  let client: OpenAiEmbeddingsClient;
  const endpoint = (upstreamModel: string, format: 'openai' | 'anthropic' = 'openai'): RoutableEndpoint =>
    simulatorEndpoint({ id: 'sim', name: 'Simulator', format, baseUrl: `${sim.simulator.url}/openai/v1`, apiKey: 'sk-sim' }, upstreamModel);

  beforeAll(() => {
    client = new OpenAiEmbeddingsClient(sim.upstream, new EntraAccessTokens(sim.env));
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
