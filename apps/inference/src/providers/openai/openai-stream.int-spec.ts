import { beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { simulatorEndpoint, simulatorUpstream } from '../../testing/spec-helpers.js';
import { UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { StreamEvent } from '../provider-adapter.js';
import { OpenAiAdapter } from './openai.adapter.js';

/** OpenAiAdapter.stream() against the provider simulator's SSE over real HTTP. */
describe('OpenAiAdapter.stream against the provider simulator', () => {
  const sim = simulatorUpstream({ UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '300', UPSTREAM_BODY_TIMEOUT_MS: '300' });
  let adapter: OpenAiAdapter;
  const endpoint = (upstreamModel: string, apiKey = 'sk-sim'): RoutableEndpoint =>
    simulatorEndpoint({ id: 'sim', name: 'Simulator', format: 'openai', baseUrl: `${sim.simulator.url}/openai/v1`, apiKey }, upstreamModel);
  const body = { model: 'sim/x', messages: [{ role: 'user', content: 'Hello there' }] };

  /** Every event, or the failure the iteration threw after the events before it. */
  async function drain(events: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; failure?: UpstreamFailure }> {
    const seen: StreamEvent[] = [];
    try {
      for await (const event of events) seen.push(event);
    } catch (error) {
      expect(error).toBeInstanceOf(UpstreamFailure);
      return { events: seen, failure: error as UpstreamFailure };
    }
    return { events: seen };
  }

  const chunks = (events: StreamEvent[]) => events.filter((event) => event.type === 'chunk');
  const content = (events: StreamEvent[]) =>
    chunks(events)
      .map((event) => event.choices[0]?.delta.content ?? '')
      .join('');

  beforeAll(() => {
    adapter = new OpenAiAdapter(sim.upstream);
  });

  it("yields content deltas, the finish reason and then the provider's usage, asking for it even when the client did not", async () => {
    const { events, failure } = await drain(await adapter.stream(endpoint('gpt-4o-mini;cached=2;reasoning=3'), body, {}));
    expect(failure).toBeUndefined();
    expect(content(events)).toMatch(/^Simulated reply to: Hello there/);
    expect(chunks(events)[0]!.choices[0]!.delta).toMatchObject({ role: 'assistant' });
    expect(chunks(events)[0]!.systemFingerprint).toBe('fp_sim');
    expect(chunks(events).some((event) => event.choices[0]!.delta.reasoning !== undefined)).toBe(true);
    const finish = chunks(events).at(-1)!.choices[0]!;
    expect(finish).toMatchObject({ finish_reason: 'stop', native_finish_reason: 'stop' });
    const last = events.at(-1)!;
    expect(last.type).toBe('usage');
    expect(last.type === 'usage' && last.usage).toMatchObject({ cachedTokens: 2, reasoningTokens: 3, estimated: false });
  });

  it('streams tool-call arguments as string fragments that join into the arguments JSON', async () => {
    const tools = [
      {
        type: 'function',
        function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      },
    ];
    const { events } = await drain(await adapter.stream(endpoint('gpt-4o-mini'), { ...body, tools }, {}));
    const calls = chunks(events).flatMap(
      (event) =>
        (event.choices[0]!.delta.tool_calls as { id?: string; function: { name?: string; arguments?: string } }[] | undefined) ?? [],
    );
    expect(calls[0]).toMatchObject({ id: expect.any(String), function: { name: 'get_weather', arguments: '' } });
    expect(calls.length).toBeGreaterThan(2);
    expect(JSON.parse(calls.map((call) => call.function.arguments ?? '').join(''))).toEqual({ city: 'Hello there' });
    expect(chunks(events).at(-1)!.choices[0]).toMatchObject({ finish_reason: 'tool_calls', native_finish_reason: 'tool_calls' });
  });

  it('passes logprobs through on content chunks', async () => {
    const { events } = await drain(await adapter.stream(endpoint('gpt-4o-mini'), { ...body, logprobs: true, top_logprobs: 2 }, {}));
    const withLogprobs = chunks(events).find((event) => event.choices[0]!.delta.content);
    expect(withLogprobs!.choices[0]!.logprobs).toMatchObject({
      content: expect.arrayContaining([expect.objectContaining({ token: expect.any(String), top_logprobs: expect.any(Array) })]),
    });
  });

  it('rejects an error status before the first byte as a retryable failure read from the error body', async () => {
    const error = await adapter.stream(endpoint('gpt-4o-mini;status=429'), body, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamFailure);
    expect(error).toMatchObject({ retryable: true, gatewayError: { status: 429, errorType: 'rate_limit_exceeded' } });
    const tooLong = await adapter.stream(endpoint('gpt-4o-mini;context=3'), body, {}).catch((caught: unknown) => caught);
    expect(tooLong).toMatchObject({ retryable: false, gatewayError: { status: 400, errorType: 'context_length_exceeded' } });
  });

  it('uses the BYOK key of the call context instead of the catalog key', async () => {
    const refused = await adapter.stream(endpoint('gpt-4o-mini'), body, { apiKey: 'sk-sim-invalid' }).catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ gatewayError: { status: 502 } });
    const completion = adapter.complete(endpoint('gpt-4o-mini'), body, { apiKey: 'sk-sim-invalid' });
    await expect(completion).rejects.toMatchObject({ gatewayError: { status: 502 } });
  });

  it('throws a non-retryable failure when the connection is cut after the first chunks', async () => {
    const { events, failure } = await drain(await adapter.stream(endpoint('gpt-4o-mini;cut=2'), body, {}));
    expect(content(events).length).toBeGreaterThan(0);
    expect(failure).toMatchObject({ retryable: false, gatewayError: { status: 502, errorType: 'provider_unavailable' } });
  });

  it("throws a non-retryable failure on the provider's mid-stream error event", async () => {
    const { events, failure } = await drain(await adapter.stream(endpoint('gpt-4o-mini;stream-error=2'), body, {}));
    expect(content(events).length).toBeGreaterThan(0);
    expect(failure).toMatchObject({ retryable: false, gatewayError: { status: 502, errorType: 'provider_unavailable' } });
  });

  it('times a stalled stream out as a non-retryable timeout', async () => {
    const { events, failure } = await drain(await adapter.stream(endpoint('gpt-4o-mini;chunk-delay=1000'), body, {}));
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(failure).toMatchObject({ kind: 'timeout', retryable: false, gatewayError: { status: 504, errorType: 'timeout' } });
  });

  it("stops with an aborted failure when the call context's signal fires mid-stream", async () => {
    const controller = new AbortController();
    const events = await adapter.stream(endpoint('gpt-4o-mini;chunk-delay=50'), body, { signal: controller.signal });
    const seen: StreamEvent[] = [];
    const error = await (async () => {
      for await (const event of events) {
        seen.push(event);
        if (seen.length === 2) controller.abort();
      }
    })().catch((caught: unknown) => caught);
    expect(seen).toHaveLength(2);
    expect(error).toMatchObject({ kind: 'aborted', retryable: false });
  });
});
