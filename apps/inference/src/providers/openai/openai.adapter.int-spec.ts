import { startSimulator, type RunningSimulator } from '@gw/provider-simulator';
import { validateEnv } from '@gw/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { InferenceEnv } from '../../env.js';
import { Prisma } from '../../generated/prisma/client.js';
import { UpstreamClient } from '../../upstream/upstream-client.js';
import { UpstreamFailure } from '../../upstream/upstream-failure.js';
import { OpenAiAdapter } from './openai.adapter.js';

/** The OpenAI adapter and the upstream client against the provider simulator over real HTTP. */
describe('OpenAiAdapter against the provider simulator', () => {
  let simulator: RunningSimulator;
  let upstream: UpstreamClient;
  let adapter: OpenAiAdapter;
  const pricing = { prompt: new Prisma.Decimal(0), completion: new Prisma.Decimal(0), cachedPrompt: new Prisma.Decimal(0) };
  const endpoint = (upstreamModel: string, baseUrl = `${simulator.url}/openai/v1`, apiKey = 'sk-sim'): RoutableEndpoint => ({
    provider: { id: 'sim', name: 'Simulator', format: 'openai', baseUrl, apiKey },
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
  const body = { model: 'sim/x', messages: [{ role: 'user', content: 'Hello there' }] };

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
    const env = validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x', UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '300' });
    upstream = new UpstreamClient(env);
    adapter = new OpenAiAdapter(upstream);
  });

  afterAll(async () => {
    await upstream?.onModuleDestroy();
    await simulator?.close();
  });

  it("returns the normalised completion with the provider's counts", async () => {
    const completion = await adapter.complete(endpoint('gpt-4o-mini;cached=2;reasoning=3'), body, {});
    expect(completion.choices[0]!.message.content).toMatch(/^Simulated reply to: Hello there/);
    expect(completion.usage).toMatchObject({ cachedTokens: 2, reasoningTokens: 3, estimated: false });
    expect(completion.usage.promptTokens).toBeGreaterThan(0);
  });

  it('maps a 429 to a retryable rate-limit failure', async () => {
    const failure = await failureOf(adapter.complete(endpoint('gpt-4o-mini;status=429'), body, {}));
    expect(failure.retryable).toBe(true);
    expect(failure.gatewayError).toMatchObject({ status: 429, errorType: 'rate_limit_exceeded' });
  });

  it('maps a too-long prompt to context_length_exceeded, not retried', async () => {
    const failure = await failureOf(adapter.complete(endpoint('gpt-4o-mini;context=3'), body, {}));
    expect(failure.retryable).toBe(false);
    expect(failure.gatewayError).toMatchObject({ status: 400, errorType: 'context_length_exceeded' });
    expect(failure.gatewayError.message).toMatch(/maximum context length is 3 tokens/);
  });

  it("treats a refused provider key as the gateway's problem (502)", async () => {
    const failure = await failureOf(adapter.complete(endpoint('gpt-4o-mini', undefined, 'sk-sim-invalid'), body, {}));
    expect(failure.gatewayError).toMatchObject({ status: 502, errorType: 'provider_unavailable' });
  });

  it('times out a provider that does not answer before the first-byte timeout', async () => {
    const started = Date.now();
    const failure = await failureOf(adapter.complete(endpoint('gpt-4o-mini;latency=2000'), body, {}));
    expect(failure).toMatchObject({ kind: 'timeout', retryable: true });
    expect(failure.gatewayError.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('reports a connection cut before the body as a retryable protocol failure', async () => {
    const failure = await failureOf(adapter.complete(endpoint('gpt-4o-mini;cut=0'), body, {}));
    expect(failure).toMatchObject({ kind: 'protocol', retryable: true });
    expect(failure.gatewayError.status).toBe(502);
  });

  it('reports an unreachable provider as a retryable connect failure', async () => {
    const failure = await failureOf(adapter.complete(endpoint('gpt-4o-mini', 'http://127.0.0.1:9/v1'), body, {}));
    expect(failure).toMatchObject({ kind: 'connect', retryable: true });
    expect(failure.gatewayError).toMatchObject({ status: 502, errorType: 'provider_unavailable' });
  });
});
