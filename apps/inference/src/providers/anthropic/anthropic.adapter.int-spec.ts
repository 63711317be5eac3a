import { beforeAll, describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { failureOf, SIMULATOR_PARAMETERS, simulatorEndpoint, simulatorUpstream } from '../../testing/spec-helpers.js';
import type { StreamEvent } from '../provider-adapter.js';
import { AnthropicAdapter } from './anthropic.adapter.js';

/** The Anthropic adapter against the provider simulator's Messages API over real HTTP. */
describe('AnthropicAdapter against the provider simulator', () => {
  const sim = simulatorUpstream({ UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '300' });
  let adapter: AnthropicAdapter;
  const endpoint = (upstreamModel: string, apiKey = 'sk-ant-sim'): RoutableEndpoint =>
    simulatorEndpoint(
      { id: 'sim-anthropic', name: 'Simulator', format: 'anthropic', baseUrl: `${sim.simulator.url}/anthropic/v1`, apiKey },
      upstreamModel,
      [...SIMULATOR_PARAMETERS, 'top_k'],
    );
  const body = {
    model: 'sim/claude',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello there' },
    ],
  };
  const tools = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
      },
    },
  ];

  async function drain(events: AsyncIterable<StreamEvent>, into: StreamEvent[] = []): Promise<StreamEvent[]> {
    for await (const event of events) into.push(event);
    return into;
  }

  beforeAll(() => {
    adapter = new AnthropicAdapter(sim.upstream);
  });

  it("answers a chat body through the Messages API, with the provider's counts", async () => {
    const completion = await adapter.complete(endpoint('claude-sonnet-4-5;cached=2'), body, {});
    expect(completion.upstreamId).toMatch(/^msg_/);
    expect(completion.choices[0]!.message.content).toMatch(/^Simulated reply to: Hello there/);
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', native_finish_reason: 'end_turn' });
    // The simulator lowers input_tokens by the cache read; prompt tokens add it back.
    expect(completion.usage).toMatchObject({ cachedTokens: 2, estimated: false });
    const uncached = await adapter.complete(endpoint('claude-sonnet-4-5'), body, {});
    expect(completion.usage.promptTokens).toBe(uncached.usage.promptTokens);
  });

  it('runs a tool round trip: tool_use out as tool_calls, the tool result back in', async () => {
    const first = await adapter.complete(endpoint('claude-sonnet-4-5'), { ...body, tools, tool_choice: 'required' }, {});
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]).toMatchObject({ finish_reason: 'tool_calls', native_finish_reason: 'tool_use' });
    expect(call).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather' } });
    expect(call.id).toMatch(/^toolu_/);
    expect(typeof JSON.parse(call.function.arguments).location).toBe('string');

    const second = await adapter.complete(
      endpoint('claude-sonnet-4-5'),
      {
        ...body,
        tools,
        messages: [
          ...body.messages,
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: '21 degrees' },
        ],
      },
      {},
    );
    expect(second.choices[0]!.message.content).toBe('Based on the tool result: "21 degrees".');
  });

  it('returns thinking as reasoning when reasoning is asked for', async () => {
    const completion = await adapter.complete(
      endpoint('claude-sonnet-4-5'),
      { ...body, reasoning: { effort: 'high' }, max_tokens: 4000 },
      {},
    );
    const message = completion.choices[0]!.message as unknown as Record<string, unknown>;
    expect(typeof message.reasoning).toBe('string');
    expect((message.reasoning_details as Array<Record<string, unknown>>)[0]).toMatchObject({
      type: 'reasoning.text',
      format: 'anthropic-claude-v1',
    });
    expect(typeof (message.reasoning_details as Array<Record<string, unknown>>)[0]!.signature).toBe('string');
  });

  it('maps 529 overloaded_error to a retryable provider_overloaded and 429 to rate_limit_exceeded', async () => {
    const overloaded = await failureOf(adapter.complete(endpoint('claude-sonnet-4-5;status=529'), body, {}));
    expect(overloaded.retryable).toBe(true);
    expect(overloaded.gatewayError).toMatchObject({ status: 503, errorType: 'provider_overloaded' });
    const limited = await failureOf(adapter.complete(endpoint('claude-sonnet-4-5;status=429'), body, {}));
    expect(limited.gatewayError).toMatchObject({ status: 429, errorType: 'rate_limit_exceeded' });
  });

  it('maps "prompt is too long" to context_length_exceeded, before streaming too', async () => {
    const failure = await failureOf(adapter.complete(endpoint('claude-sonnet-4-5;context=3'), body, {}));
    expect(failure.retryable).toBe(false);
    expect(failure.gatewayError).toMatchObject({ status: 400, errorType: 'context_length_exceeded' });
    expect(failure.gatewayError.message).toMatch(/prompt is too long/);
    const streamed = await failureOf(adapter.stream(endpoint('claude-sonnet-4-5;context=3'), body, {}));
    expect(streamed.gatewayError).toMatchObject({ status: 400, errorType: 'context_length_exceeded' });
  });

  it('sends the BYOK key instead of the catalog key', async () => {
    const refused = await failureOf(adapter.complete(endpoint('claude-sonnet-4-5'), body, { apiKey: 'sk-ant-sim-invalid' }));
    expect(refused.gatewayError.status).toBe(502);
    const accepted = await adapter.complete(endpoint('claude-sonnet-4-5', 'sk-ant-sim-invalid'), body, { apiKey: 'sk-ant-byok' });
    expect(accepted.choices[0]!.message.content).toMatch(/^Simulated reply/);
  });

  it('streams text, then the finish chunk, then usage', async () => {
    const events = await drain(await adapter.stream(endpoint('claude-sonnet-4-5'), body, {}));
    const chunks = events.filter((event) => event.type === 'chunk');
    const text = chunks.map((event) => (event.type === 'chunk' ? (event.choices[0]!.delta.content ?? '') : '')).join('');
    const complete = await adapter.complete(endpoint('claude-sonnet-4-5'), body, {});
    expect(text).toBe(complete.choices[0]!.message.content);
    expect(chunks.at(-1)!.type === 'chunk' && chunks.at(-1)!.choices[0]).toMatchObject({
      finish_reason: 'stop',
      native_finish_reason: 'end_turn',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'usage',
      usage: { promptTokens: complete.usage.promptTokens, completionTokens: complete.usage.completionTokens },
    });
  });

  it('streams tool-call deltas whose arguments join into the tool input', async () => {
    const events = await drain(await adapter.stream(endpoint('claude-sonnet-4-5'), { ...body, tools }, {}));
    const calls = events.flatMap((event) =>
      event.type === 'chunk' ? ((event.choices[0]!.delta.tool_calls as Array<Record<string, any>>) ?? []) : [],
    );
    expect(calls[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(calls[0]!.id).toMatch(/^toolu_/);
    expect(calls.length).toBeGreaterThan(2);
    expect(typeof JSON.parse(calls.map((call) => call.function.arguments).join('')).location).toBe('string');
  });

  it('fails a stream the provider breaks off with an error event, or cuts, without retry', async () => {
    const errored: StreamEvent[] = [];
    const overloaded = await failureOf(drain(await adapter.stream(endpoint('claude-sonnet-4-5;stream-error=2'), body, {}), errored));
    expect(overloaded).toMatchObject({ retryable: false });
    expect(overloaded.gatewayError).toMatchObject({ status: 503, errorType: 'provider_overloaded' });
    expect(errored.length).toBeGreaterThan(0);
    const cut = await failureOf(drain(await adapter.stream(endpoint('claude-sonnet-4-5;cut=2'), body, {})));
    expect(cut.retryable).toBe(false);
  });

  it('rejects a refused stream before its first byte as a retryable failure', async () => {
    const failure = await failureOf(adapter.stream(endpoint('claude-sonnet-4-5;status=529'), body, {}));
    expect(failure.retryable).toBe(true);
    expect(failure.gatewayError.errorType).toBe('provider_overloaded');
  });
});
