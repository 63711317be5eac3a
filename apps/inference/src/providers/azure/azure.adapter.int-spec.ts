import { validateEnv } from '@gw/config';
import { SIM_AZURE_API_KEY, SIM_ENTRA_CLIENT_ID, SIM_ENTRA_CLIENT_SECRET, SIM_ENTRA_TENANT_ID } from '@gw/provider-simulator';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { OpenAiEmbeddingsClient } from '../../embeddings/openai-embeddings.client.js';
import { InferenceEnv } from '../../env.js';
import { Prisma } from '../../generated/prisma/client.js';
import { failureOf, SIMULATOR_PARAMETERS, simulatorUpstream } from '../../testing/spec-helpers.js';
import { UpstreamClient } from '../../upstream/upstream-client.js';
import { OpenAiResponsesAdapter } from '../openai-responses/openai-responses.adapter.js';
import { AzureOpenAiAdapter } from './azure.adapter.js';
import { EntraAccessTokens } from './entra-access-tokens.js';

describe('Azure OpenAI adapter specifics (adapter -> simulator)', () => {
  const sim = simulatorUpstream({}, { tls: true });
  let adapter: AzureOpenAiAdapter;
  let tokens: EntraAccessTokens;
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
  /** The v1 API with the simulated tenant's Entra ID app, whose authority serves TLS with the run's CA. */
  const entraEndpoint = (deployment = 'gpt-4o-mini'): RoutableEndpoint => ({
    provider: {
      id: 'sim-azure-entra',
      name: 'Simulator',
      format: 'azure',
      baseUrl: `${sim.simulator.url}/azure`,
      apiKey: SIM_ENTRA_CLIENT_SECRET,
      entra: { tenantId: SIM_ENTRA_TENANT_ID, clientId: SIM_ENTRA_CLIENT_ID, authorityHost: sim.simulator.tlsUrl },
    },
    upstreamModel: deployment,
    pricing,
    supportedParameters: new Set(SIMULATOR_PARAMETERS),
  });
  const ask = (text: string, extra: Record<string, unknown> = {}) => ({
    model: 'sim/azure',
    messages: [{ role: 'user', content: text }],
    ...extra,
  });
  beforeAll(() => {
    tokens = new EntraAccessTokens(sim.env);
    adapter = new AzureOpenAiAdapter(sim.upstream, tokens);
  });

  it('an api-version Azure does not serve is the caller’s 400, streamed or not', async () => {
    const target = endpoint('gpt', { apiVersion: '2019-01-01' });
    for (const call of [() => adapter.complete(target, ask('Hello there'), {}), () => adapter.stream(target, ask('Hello there'), {})]) {
      const failure = await failureOf(call());
      expect({ status: failure.gatewayError.status, errorType: failure.gatewayError.errorType, retryable: failure.retryable }).toEqual({
        status: 400,
        errorType: 'invalid_request',
        retryable: false,
      });
    }
  });

  describe("BYOK: the workspace's own resource, deployment and key", () => {
    const own = (endpointUrl: string, deployment = 'my-deployment') =>
      JSON.stringify({ apiKey: SIM_AZURE_API_KEY, endpoint: endpointUrl, deployment });
    const env = (allowed: string) => validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x', BYOK_ALLOWED_ORIGINS: allowed });
    const app = (secret = SIM_ENTRA_CLIENT_SECRET) =>
      JSON.stringify({ tenantId: SIM_ENTRA_TENANT_ID, clientId: SIM_ENTRA_CLIENT_ID, clientSecret: secret });

    it('a plain key uses the catalog resource; a JSON credential its own endpoint and deployment', async () => {
      const plain = await adapter.complete(endpoint(), ask('Hello there'), { apiKey: SIM_AZURE_API_KEY });
      expect(plain.choices[0]!.finish_reason).toBe('stop');
      const upstream = new UpstreamClient(env(sim.simulator.url));
      try {
        // The catalog deployment would fail (status=401): the credential's own deployment answers.
        const completion = await new AzureOpenAiAdapter(upstream, tokens).complete(endpoint('gpt;status=401'), ask('Hello there'), {
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
        const guarded = new AzureOpenAiAdapter(upstream, tokens);
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

    it("an Entra ID app as the credential: a token from the catalog's authority, its secret checked there", async () => {
      const catalogAuthority = entraEndpoint();
      const byok = { ...catalogAuthority, provider: { ...catalogAuthority.provider, apiKey: '' } };
      const answer = await adapter.complete(byok, ask('Hello there'), { apiKey: app() });
      expect(answer.choices[0]!.finish_reason).toBe('stop');
      const refused = await failureOf(adapter.complete(byok, ask('Hello there'), { apiKey: app('not-the-secret') }));
      expect({ status: refused.gatewayError.status, errorType: refused.gatewayError.errorType, retryable: refused.retryable }).toEqual({
        status: 502,
        errorType: 'provider_unavailable',
        retryable: false,
      });
      for (const half of [
        { tenantId: SIM_ENTRA_TENANT_ID, clientId: SIM_ENTRA_CLIENT_ID },
        { ...JSON.parse(app()), apiKey: 'k' },
      ])
        await expect(adapter.complete(byok, ask('Hello there'), { apiKey: JSON.stringify(half) })).rejects.toMatchObject({ status: 400 });
    });
  });

  describe('Entra ID over TLS', () => {
    it('trusts the authority only through the configured CA: without it the token endpoint is unreachable', async () => {
      const untrusting = new EntraAccessTokens(validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x' }));
      const failure = await failureOf(new AzureOpenAiAdapter(sim.upstream, untrusting).complete(entraEndpoint(), ask('Hello there'), {}));
      expect(failure).toMatchObject({ kind: 'connect', retryable: true, gatewayError: { errorType: 'provider_unavailable' } });
    });

    it('one token serves many calls, and a token the authority did not issue is refused by the resource', async () => {
      const issued = async () => ((await (await fetch(`${sim.simulator.url}/sim/entra/issued`)).json()) as { issued: number }).issued;
      const before = await issued();
      for (let call = 0; call < 3; call++)
        expect((await adapter.complete(entraEndpoint(), ask('Hello there'), {})).choices[0]!.finish_reason).toBe('stop');
      expect((await issued()) - before).toBeLessThanOrEqual(1);
      const forged = await fetch(`${sim.simulator.url}/azure/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer eyJ0eXAiOiJKV1Qi.sim-entra.forged', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(forged.status).toBe(401);
    });
  });

  it("the Responses API natively: the resource's /openai/responses under a preview api-version, or the v1 API with Entra ID", async () => {
    const responses = new OpenAiResponsesAdapter(sim.upstream, tokens);
    for (const target of [endpoint('gpt-4o-mini', { apiVersion: '2025-04-01-preview' }), entraEndpoint()]) {
      const answer = await responses.complete(target, ask('Hello there'), {});
      expect(answer.choices[0]!.message.content).toMatch(/^Simulated reply to: Hello there\./);
      expect(answer.usage).toMatchObject({ completionTokens: 24, estimated: false });
      let text = '';
      for await (const event of await responses.stream(target, ask('Hello there'), {}))
        if (event.type === 'chunk') text += String(event.choices[0]?.delta.content ?? '');
      expect(text).toBe(answer.choices[0]!.message.content);
    }
    // A GA version before the Responses API existed is Azure's 400.
    const old = await failureOf(responses.complete(endpoint('gpt-4o-mini'), ask('Hello there'), {}));
    expect(old.gatewayError).toMatchObject({ status: 400, errorType: 'invalid_request' });
  });

  it('embeddings on a deployment, billed by the prompt tokens Azure reports', async () => {
    const client = new OpenAiEmbeddingsClient(sim.upstream, tokens);
    for (const target of [endpoint('embed-small'), entraEndpoint('embed-small')]) {
      const embeddings = await client.create(target, { model: 'm', input: ['one two', 'three'] }, {});
      expect(embeddings.data).toHaveLength(2);
      expect(embeddings.usage).toMatchObject({ prompt_tokens: 3 });
    }
  });
});
