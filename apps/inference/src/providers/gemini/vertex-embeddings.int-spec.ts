import { beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { failureOf, simulatorEndpoint, simulatorUpstream } from '../../testing/spec-helpers.js';
import { VertexAdapter } from './gemini.adapter.js';
import { GoogleAccessTokens } from './google-access-tokens.js';
import { VertexEmbeddings } from './vertex-embeddings.js';

/** Vertex AI embeddings (`:predict`) against the simulator's strict copy, with a service account's token. */
describe('VertexEmbeddings against the provider simulator', () => {
  const sim = simulatorUpstream();
  let embeddings: VertexEmbeddings;
  let account: string;
  const endpoint = (model: string): RoutableEndpoint =>
    simulatorEndpoint(
      {
        id: 'sim-vertex',
        name: 'Vertex AI',
        format: 'vertex',
        baseUrl: `${sim.simulator.url}/vertex/v1`,
        apiKey: account,
        vertex: { location: 'us-central1', tokenUrl: `${sim.simulator.url}/google/oauth2/token` },
      },
      model,
    );

  beforeAll(async () => {
    account = JSON.stringify(await (await fetch(`${sim.simulator.url}/sim/google/service-account`)).json());
    embeddings = new VertexEmbeddings(sim.upstream, new VertexAdapter(sim.upstream, new GoogleAccessTokens()));
  });

  it("one :predict call for several inputs, each input's token count summed into the usage", async () => {
    const result = await embeddings.create(endpoint('text-embedding-005'), { model: 'm', input: ['one two', 'three'], dimensions: 8 }, {});
    expect(result.data.map((item) => (item.embedding as number[]).length)).toEqual([8, 8]);
    expect(result.usage).toEqual({ prompt_tokens: 3 });
    const packed = await embeddings.create(
      endpoint('text-embedding-005'),
      { model: 'm', input: 'one two', dimensions: 8, encoding_format: 'base64' },
      {},
    );
    expect(Buffer.from(packed.data[0]!.embedding as string, 'base64').readFloatLE(0)).toBeCloseTo(
      (result.data[0]!.embedding as number[])[0]!,
      6,
    );
  });

  it('gemini-embedding models take one instance a call: one call per input', async () => {
    const result = await embeddings.create(endpoint('gemini-embedding-001'), { model: 'm', input: ['one two', 'three', 'four'] }, {});
    expect(result.data.map((item) => item.index)).toEqual([0, 1, 2]);
    expect(result.usage).toEqual({ prompt_tokens: 4 });
  });

  it("Vertex's refusals are the caller's 400; a chat model has no predict method; faults map as chat's", async () => {
    const tooWide = await failureOf(embeddings.create(endpoint('text-embedding-005'), { model: 'm', input: 'x', dimensions: 5000 }, {}));
    expect(tooWide.gatewayError).toMatchObject({ status: 400, errorType: 'invalid_request' });
    const chat = await failureOf(embeddings.create(endpoint('gemini-2.5-flash'), { model: 'm', input: 'x' }, {}));
    expect(chat.gatewayError.status).toBe(400);
    const limited = await failureOf(
      embeddings.create(endpoint('text-embedding-005;status=429;retry-after=4'), { model: 'm', input: 'x' }, {}),
    );
    expect(limited).toMatchObject({ retryable: true, gatewayError: { status: 429, errorType: 'rate_limit_exceeded' } });
    await expect(embeddings.create(endpoint('text-embedding-005'), { model: 'm', input: [[1, 2]] }, {})).rejects.toMatchObject({
      status: 400,
    });
  });
});
