import { describe, expect, it } from 'vitest';
import { UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { StreamEvent } from '../provider-adapter.js';
import { anthropicStreamEvents } from './anthropic-stream.js';

/** SSE frames as Anthropic writes them: `event: <type>` then `data: <json>`. */
function sse(events: Array<Record<string, unknown>>): string {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

async function* pieces(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function collect(text: string, size = 7, excludeReasoning = false): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of anthropicStreamEvents('anthropic', pieces(text, size), { excludeReasoning })) events.push(event);
  return events;
}

async function failureOf(text: string): Promise<UpstreamFailure> {
  const error = await collect(text).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UpstreamFailure);
  return error as UpstreamFailure;
}

const deltas = (events: StreamEvent[]) =>
  events.flatMap((event) => (event.type === 'chunk' ? event.choices.map((choice) => choice.delta) : []));

/**
 * "Streaming request with tool use" of https://docs.anthropic.com/en/docs/build-with-claude/streaming:
 * a text block, then a get_weather tool_use block whose input arrives as input_json_delta
 * fragments, then message_delta with stop_reason tool_use.
 */
const documentedToolStream = sse([
  {
    type: 'message_start',
    message: {
      id: 'msg_014p7gG3wDgGV9EUtLvnow3U',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-1-20250805',
      stop_sequence: null,
      usage: { input_tokens: 472, output_tokens: 2 },
      content: [],
      stop_reason: null,
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Okay' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ',' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: " let's check the weather for San Francisco, CA:" } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"location":' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ' "San' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ' Francisc' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'o,' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ' CA"' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ', ' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"unit": "fah' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'renheit"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 89 } },
  { type: 'message_stop' },
]);

describe('anthropicStreamEvents', () => {
  it('relays the documented tool-use stream as OpenAI chunks, split at any byte', async () => {
    for (const size of [1, 7, 4096]) {
      const events = await collect(documentedToolStream, size);
      const all = deltas(events);
      expect(all[0]).toEqual({ role: 'assistant', content: '' });
      expect(
        all
          .map((delta) => delta.content)
          .filter((text) => typeof text === 'string')
          .join(''),
      ).toBe("Okay, let's check the weather for San Francisco, CA:");

      const toolDeltas = all.flatMap((delta) => (delta.tool_calls as Array<Record<string, any>> | undefined) ?? []);
      // The first carries index, id, type and name with empty arguments, as OpenAI streams it.
      expect(toolDeltas[0]).toEqual({
        index: 0,
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      });
      expect(toolDeltas.slice(1).every((delta) => delta.index === 0 && delta.id === undefined)).toBe(true);
      const argumentsText = toolDeltas.map((delta) => delta.function.arguments).join('');
      expect(JSON.parse(argumentsText)).toEqual({ location: 'San Francisco, CA', unit: 'fahrenheit' });

      const finish = events.filter((event) => event.type === 'chunk').at(-1)!;
      expect(finish.type === 'chunk' && finish.choices[0]).toMatchObject({
        finish_reason: 'tool_calls',
        native_finish_reason: 'tool_use',
        delta: {},
      });
      expect(events.at(-1)).toEqual({
        type: 'usage',
        usage: { promptTokens: 472, completionTokens: 89, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, estimated: false },
      });
    }
  });

  it('numbers tool calls by call, not by content block', async () => {
    const events = await collect(
      sse([
        { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Both:' } },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_a', name: 'f', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{}' } },
        { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_b', name: 'g', input: {} } },
        { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"x":1}' } },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 20 } },
        { type: 'message_stop' },
      ]),
    );
    const calls = deltas(events).flatMap((delta) => (delta.tool_calls as Array<Record<string, unknown>> | undefined) ?? []);
    expect(calls.map((call) => [call.index, call.id])).toEqual([
      [0, 'toolu_a'],
      [0, undefined],
      [1, 'toolu_b'],
      [1, undefined],
    ]);
  });

  it('relays thinking_delta as reasoning and the signature as reasoning_details (extended thinking docs)', async () => {
    // https://docs.anthropic.com/en/docs/build-with-claude/streaming ("Streaming request with extended thinking")
    const stream = sse([
      { type: 'message_start', message: { id: 'msg_01', usage: { input_tokens: 30, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'Let me solve this step by step:\n\n1. First break down 27 * 453' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: '\n2. 453 = 400 + 50 + 3' } },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...' },
      },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: '27 * 453 = 12,231' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null } },
      { type: 'message_stop' },
    ]);
    const all = deltas(await collect(stream));
    expect(
      all
        .map((delta) => delta.reasoning)
        .filter(Boolean)
        .join(''),
    ).toBe('Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3');
    const details = all.flatMap((delta) => (delta.reasoning_details as Array<Record<string, unknown>> | undefined) ?? []);
    expect(details.at(-1)).toEqual({
      type: 'reasoning.text',
      signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...',
      format: 'anthropic-claude-v1',
      index: 0,
    });
    expect(
      all
        .map((delta) => delta.content)
        .filter(Boolean)
        .join(''),
    ).toBe('27 * 453 = 12,231');

    const excluded = deltas(await collect(stream, 7, true));
    expect(excluded.some((delta) => 'reasoning' in delta || 'reasoning_details' in delta)).toBe(false);
  });

  it('takes cumulative usage from message_delta, including cache counts newer API versions repeat there', async () => {
    const events = await collect(
      sse([
        {
          type: 'message_start',
          message: { usage: { input_tokens: 849, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 10 } },
        },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } },
        {
          type: 'message_delta',
          delta: { stop_reason: 'max_tokens' },
          usage: { input_tokens: 849, cache_read_input_tokens: 100, output_tokens: 47 },
        },
        { type: 'message_stop' },
      ]),
    );
    expect(events.at(-1)).toEqual({
      type: 'usage',
      usage: { promptTokens: 949, completionTokens: 47, cachedTokens: 100, cacheWriteTokens: 0, reasoningTokens: 0, estimated: false },
    });
    const finish = events.at(-2)!;
    expect(finish.type === 'chunk' && finish.choices[0]).toMatchObject({ finish_reason: 'length', native_finish_reason: 'max_tokens' });
  });

  it('ends with a non-retryable provider_overloaded failure on the documented mid-stream error event', async () => {
    // https://docs.anthropic.com/en/docs/build-with-claude/streaming ("Error events")
    const failure = await failureOf(
      sse([
        { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      ]),
    );
    expect(failure.retryable).toBe(false);
    expect(failure.gatewayError).toMatchObject({ status: 503, errorType: 'provider_overloaded' });
  });

  it('reports a stream that ends without message_stop, or a frame that is not JSON, as a failure', async () => {
    const cut = await failureOf(sse([{ type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } }]));
    expect(cut).toMatchObject({ retryable: false });
    expect(cut.gatewayError.message).toMatch(/ended the stream before it was complete/);
    const garbage = await failureOf('event: message_start\ndata: {not json\n\n');
    expect(garbage).toMatchObject({ kind: 'protocol', retryable: false });
  });
});
