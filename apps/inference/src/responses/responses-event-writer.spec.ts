import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../providers/provider-adapter.js';
import { ResponsesEventWriter } from './responses-event-writer.js';
import { echoedConfiguration } from './responses-view.js';

type Event = Record<string, any>;

function writer(includeEncryptedReasoning = false) {
  const frames: string[] = [];
  const head = {
    id: 'resp_1',
    createdAt: 1_700_000_000,
    model: 'sim/gpt-4o-mini',
    echo: echoedConfiguration({ instructions: 'Be brief.' }),
  };
  const instance = new ResponsesEventWriter(head, { includeEncryptedReasoning, truncation: 'disabled', clientTools: new Map() }, (frame) =>
    frames.push(frame),
  );
  const events = (): Event[] =>
    frames.map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      const data = JSON.parse(dataLine!.slice('data: '.length)) as Event;
      expect(eventLine).toBe(`event: ${data.type}`);
      expect(frame.endsWith('\n\n')).toBe(true);
      return data;
    });
  return { instance, events };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null): StreamEvent => ({
  type: 'chunk',
  choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: finish }],
});
const usage = {
  input_tokens: 5,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 3,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 8,
  cost: 0.1,
  is_byok: false,
  cost_details: { upstream_inference_cost: null, upstream_inference_input_cost: 0.05, upstream_inference_output_cost: 0.05 },
};

describe('chat stream events -> Responses semantic events', () => {
  it('frames a text answer as OpenAI does, numbered from 0, and completes with the whole response', () => {
    const { instance, events } = writer();
    instance.start();
    instance.add(chunk({ role: 'assistant', content: '' }));
    instance.add(chunk({ content: 'Hello' }));
    instance.add(chunk({ content: ' world' }));
    instance.add(chunk({}, 'stop'));
    const final = instance.finish(usage);
    const all = events();
    expect(all.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(all.map((event) => event.sequence_number)).toEqual(all.map((_, index) => index));
    expect(all[0]!.response).toMatchObject({
      id: 'resp_1',
      object: 'response',
      status: 'in_progress',
      output: [],
      instructions: 'Be brief.',
      usage: null,
    });
    const itemId = all[2]!.item.id as string;
    expect(itemId).toMatch(/^msg_/);
    expect(all.slice(3, 9).every((event) => event.item_id === undefined || event.item_id === itemId)).toBe(true);
    expect(all[6]).toMatchObject({ text: 'Hello world', output_index: 0, content_index: 0 });
    expect(final).toMatchObject({
      status: 'completed',
      output_text: 'Hello world',
      usage,
      output: [
        { type: 'message', id: itemId, status: 'completed', content: [{ type: 'output_text', text: 'Hello world', annotations: [] }] },
      ],
    });
    expect(all.at(-1)!.response).toEqual(final);
  });

  it('opens a reasoning item before the text, and packs the reasoning details into encrypted_content when asked', () => {
    const { instance, events } = writer(true);
    instance.start();
    instance.add(
      chunk({
        reasoning: 'Let me think',
        reasoning_details: [{ type: 'reasoning.text', text: 'Let me think', signature: 's', format: 'anthropic-claude-v1', index: 0 }],
      }),
    );
    instance.add(chunk({ content: 'Answer' }, 'stop'));
    const final = instance.finish(usage);
    const types = events().map((event) => event.type);
    expect(types.slice(2, 8)).toEqual([
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    expect(final.output[0]).toMatchObject({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Let me think' }],
      encrypted_content: expect.stringMatching(/^gwr1\./),
    });
    expect(final.output[1]).toMatchObject({ type: 'message', content: [{ text: 'Answer' }] });
  });

  it('streams function calls as items with argument deltas, one per tool call index', () => {
    const { instance, events } = writer();
    instance.start();
    instance.add(
      chunk({
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }],
      }),
    );
    instance.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }));
    instance.add(chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }] }));
    instance.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }, 'tool_calls'));
    const final = instance.finish(usage);
    const all = events();
    expect(all.filter((event) => event.type === 'response.function_call_arguments.done').map((event) => event.arguments)).toEqual([
      '{"a":1}',
      '{}',
    ]);
    expect(final.output).toEqual([
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_a', name: 'f', arguments: '{"a":1}', status: 'completed' },
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_b', name: 'g', arguments: '{}', status: 'completed' },
    ]);
    expect(final.status).toBe('completed');
  });

  it('turns generated images into image_generation_call items with the base64 result', () => {
    const { instance, events } = writer();
    instance.start();
    instance.add(chunk({ content: 'Here it is' }));
    instance.add(chunk({ images: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }, 'stop'));
    const final = instance.finish(usage);
    expect(final.output).toEqual([
      expect.objectContaining({ type: 'message', status: 'completed' }),
      { type: 'image_generation_call', id: expect.stringMatching(/^ig_/), status: 'completed', result: 'iVBORw0KGgo=' },
    ]);
    const types = events().map((event) => event.type);
    expect(types.slice(-3)).toEqual(['response.output_item.added', 'response.output_item.done', 'response.completed']);
  });

  it('ends incomplete when max tokens stopped it', () => {
    const { instance, events } = writer();
    instance.start();
    instance.add(chunk({ content: 'Cut' }, 'length'));
    const final = instance.finish(usage);
    expect(events().at(-1)!.type).toBe('response.incomplete');
    expect(final).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ status: 'incomplete' }],
    });
  });

  it('ends a failed stream with response.failed: the error, its canonical type, the items so far marked incomplete', () => {
    const { instance, events } = writer();
    instance.start({ service_metadata: { attempt: 1 } });
    instance.add(chunk({ content: 'Half' }));
    instance.fail(
      new GatewayError(502, 'Provider simulator-openai reported an error mid-stream', {
        errorType: 'provider_unavailable',
        metadata: { provider: 'simulator-openai' },
      }),
    );
    const all = events();
    expect(all.slice(-2).map((event) => event.type)).toEqual(['error', 'response.failed']);
    expect(all.at(-2)).toMatchObject({ code: 'provider_unavailable', message: expect.stringContaining('mid-stream'), param: null });
    const last = all.at(-1)!;
    expect(last.response).toMatchObject({
      status: 'failed',
      error_type: 'provider_unavailable',
      error: {
        code: 'provider_unavailable',
        message: expect.stringContaining('mid-stream'),
        metadata: { provider: 'simulator-openai', error_type: 'provider_unavailable' },
      },
      output: [{ type: 'message', status: 'incomplete' }],
      service_metadata: { attempt: 1 },
    });
  });
});
