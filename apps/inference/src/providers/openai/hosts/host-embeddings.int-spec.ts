import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../../catalog/catalog.service.js';
import { OpenAiEmbeddingsClient, type UpstreamEmbeddings } from '../../../embeddings/openai-embeddings.client.js';
import { simulatorUpstream } from '../../../testing/spec-helpers.js';
import { EntraAccessTokens } from '../../azure/entra-access-tokens.js';
import { CONFORMANCE_PRICING } from '../../conformance/conformance-cases.js';
import { EMBEDDING_HOSTS } from './host-embeddings.js';
import { OPENAI_HOSTS, type OpenAiHost } from './openai-hosts.js';

const HOSTS = OPENAI_HOSTS.filter((host) => host !== 'openai');
const TEXTS = ['The quick brown fox', 'jumps over the lazy dog'];

/**
 * Embeddings on each named OpenAI-compatible host, one table: what the host takes answers,
 * what it cannot do is a 400 from the gateway naming it, and the same body sent raw to the
 * host's simulator is refused first (so a case cannot pass by a lenient simulator).
 */
describe('OpenAI-compatible hosts: embeddings', () => {
  const sim = simulatorUpstream();
  const client = () => new OpenAiEmbeddingsClient(sim.upstream, new EntraAccessTokens(sim.env));
  const endpoint = (host: OpenAiHost): RoutableEndpoint => ({
    provider: { id: `sim-${host}`, name: host, format: 'openai', host, baseUrl: `${sim.simulator.url}/hosts/${host}/v1`, apiKey: 'sk-sim' },
    upstreamModel: 'embed-model',
    pricing: CONFORMANCE_PRICING,
    supportedParameters: new Set(['dimensions', 'encoding_format', 'user']),
  });
  const embed = (host: OpenAiHost, body: Record<string, unknown>, endUserHash?: string): Promise<UpstreamEmbeddings> =>
    client().create(endpoint(host), { model: 'm', input: TEXTS, ...body }, endUserHash ? { endUserHash } : {});
  const raw = async (host: OpenAiHost, body: Record<string, unknown>): Promise<number> =>
    (
      await fetch(`${sim.simulator.url}/hosts/${host}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-sim', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'embed-model', input: TEXTS, ...body }),
      })
    ).status;
  const refusal = async (promise: Promise<unknown>): Promise<GatewayError> => {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  };

  it.each(HOSTS.filter((host) => !EMBEDDING_HOSTS[host]))(
    '%s has no embeddings endpoint: a 400 naming the host, never a call',
    async (host) => {
      expect(await raw(host, {})).toBe(404);
      const error = await refusal(embed(host, {}));
      expect(error.status).toBe(400);
      expect(error.message).toContain(`(${host}) has no embeddings endpoint`);
    },
  );

  describe.each(HOSTS.filter((host) => EMBEDDING_HOSTS[host]))('%s', (host) => {
    const profile = EMBEDDING_HOSTS[host]!;

    it('embeds text, one vector per input in order, with usage', async () => {
      const answer = await embed(host, {});
      expect(answer.data.map((item) => (item.embedding as number[]).length)).toEqual([16, 16]);
      expect(answer.usage?.prompt_tokens).toBeGreaterThan(0);
    });

    it('the end user goes where the host takes it, and is left out where a strict host refuses it', async () => {
      if (!profile.user) expect(await raw(host, { user: 'u-1' })).toBeGreaterThanOrEqual(400);
      expect((await embed(host, {}, 'hash-of-user')).data).toHaveLength(2);
    });

    it(
      profile.dimensions
        ? `dimensions goes out as ${profile.dimensions}`
        : 'dimensions is a 400 naming it (the host cannot shorten vectors)',
      async () => {
        if (profile.dimensions === 'output_dimension') expect(await raw(host, { dimensions: 8 })).toBe(422);
        if (profile.dimensions) {
          const answer = await embed(host, { dimensions: 8 });
          expect(answer.data.map((item) => (item.embedding as number[]).length)).toEqual([8, 8]);
        } else {
          expect(await raw(host, { dimensions: 8 })).toBeGreaterThanOrEqual(400);
          const error = await refusal(embed(host, { dimensions: 8 }));
          expect([error.status, error.message]).toEqual([400, `Provider sim-${host} (${host}) does not support dimensions for embeddings`]);
        }
      },
    );

    it('base64 is the float vector as little-endian float32, from the host or encoded by the gateway', async () => {
      if (!profile.encodingFormats.includes('base64')) expect(await raw(host, { encoding_format: 'base64' })).toBeGreaterThanOrEqual(400);
      const floats = (await embed(host, {})).data.map((item) => item.embedding as number[]);
      const encoded = (await embed(host, { encoding_format: 'base64' })).data.map((item) => item.embedding);
      const decoded = encoded.map((text) => {
        expect(typeof text).toBe('string');
        const bytes = Buffer.from(text as string, 'base64');
        return Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
      });
      expect(decoded).toEqual(floats.map((vector) => vector.map((value) => Math.fround(value))));
    });

    it(
      profile.tokenInput ? 'token-id arrays are embedded' : 'token-id arrays are a 400 naming input (the host embeds text only)',
      async () => {
        const body = { input: [[1, 2, 3]] };
        if (profile.tokenInput) expect((await embed(host, body)).data).toHaveLength(1);
        else {
          expect(await raw(host, body)).toBeGreaterThanOrEqual(400);
          const error = await refusal(embed(host, body));
          expect(error.message).toContain('token-id arrays as input are not supported');
        }
      },
    );
  });

  it("OpenAI's documented input limit: more than 2048 inputs is a 400 naming it, before any call", async () => {
    const target = { ...endpoint('vllm'), provider: { ...endpoint('vllm').provider, host: undefined, baseUrl: 'http://127.0.0.1:9' } };
    const error = await refusal(client().create(target, { model: 'm', input: Array.from({ length: 2049 }, () => 'x') }, {}));
    expect([error.status, error.message]).toEqual([400, 'Provider sim-vllm (openai) embeds at most 2048 inputs per request, got 2049']);
  });
});
