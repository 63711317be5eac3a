import { beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { failureOf, simulatorEndpoint, simulatorUpstream } from '../../testing/spec-helpers.js';
import { OpenAiAdapter } from './openai.adapter.js';

/** The OpenAI adapter and the upstream client against the provider simulator over real HTTP. */
describe('OpenAiAdapter against the provider simulator', () => {
  const sim = simulatorUpstream({ UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '300' });
  let adapter: OpenAiAdapter;
  const endpoint = (upstreamModel: string, baseUrl = `${sim.simulator.url}/openai/v1`, apiKey = 'sk-sim'): RoutableEndpoint =>
    simulatorEndpoint({ id: 'sim', name: 'Simulator', format: 'openai', baseUrl, apiKey }, upstreamModel);
  const body = { model: 'sim/x', messages: [{ role: 'user', content: 'Hello there' }] };

  beforeAll(() => {
    adapter = new OpenAiAdapter(sim.upstream);
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
    // A timeout at all is the first-byte timeout's: the simulator answers after 2 s otherwise. The delay is logged.
    console.log(`first-byte timeout after ${Date.now() - started} ms`);
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
