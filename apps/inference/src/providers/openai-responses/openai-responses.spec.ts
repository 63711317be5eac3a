import { describe, expect, it } from 'vitest';
import { UpstreamFailure } from '../../upstream/upstream-failure.js';
import type { StreamEvent } from '../provider-adapter.js';
import { buildResponsesBody } from './openai-responses-request.js';
import { normalizeResponsesObject } from './openai-responses-response.js';
import { openAiResponsesStreamEvents } from './openai-responses-stream.js';

describe('internal form -> OpenAI Responses request', () => {
  it('maps messages to input items, tools flat, formats and limits, and never sends the gateway fields', () => {
    const body = buildResponsesBody(
      {
        model: 'sim/gpt-5-mini',
        provider: { sort: 'price' },
        session_id: 's1',
        top_k: 4,
        temperature: 0.3,
        service_tier: 'fast',
        max_completion_tokens: 200,
        user: 'alice',
        response_format: { type: 'json_schema', json_schema: { name: 'city', schema: { type: 'object' }, strict: true } },
        verbosity: 'low',
        reasoning: { effort: 'low', summary: 'auto' },
        tools: [{ type: 'function', function: { name: 'f', description: 'F', parameters: { type: 'object' } } }],
        tool_choice: { type: 'function', function: { name: 'f' } },
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AA', detail: 'low' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            reasoning_details: [
              { type: 'reasoning.summary', summary: 'Thought', id: 'rs_1', format: 'openai-responses-v1', index: 0 },
              { type: 'reasoning.encrypted', data: 'gAAA', id: 'rs_1', format: 'openai-responses-v1', index: 1 },
              { type: 'reasoning.text', text: 'claude thought', signature: 'sig', format: 'anthropic-claude-v1', index: 2 },
            ],
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'done' },
        ],
      },
      'gpt-5-mini',
      'hash-of-alice',
      true,
    );
    expect(body).toEqual({
      model: 'gpt-5-mini',
      store: false,
      stream: true,
      temperature: 0.3,
      service_tier: 'priority',
      max_output_tokens: 200,
      user: 'hash-of-alice',
      text: { format: { type: 'json_schema', name: 'city', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      tools: [{ type: 'function', name: 'f', description: 'F', parameters: { type: 'object' }, strict: false }],
      tool_choice: { type: 'function', name: 'f' },
      input: [
        { type: 'message', role: 'system', content: 'Be brief.' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look' },
            { type: 'input_image', image_url: 'data:image/png;base64,AA', detail: 'low' },
          ],
        },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Thought' }], encrypted_content: 'gAAA' },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'done' },
      ],
    });
  });
});

describe('OpenAI Responses object -> normalised completion', () => {
  it('reads text, annotations, function calls, reasoning and usage', () => {
    const completion = normalizeResponsesObject(
      {
        id: 'resp_1',
        status: 'completed',
        output: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Thought' }], encrypted_content: 'gAAA' },
          {
            type: 'message',
            id: 'msg_1',
            role: 'assistant',
            content: [
              {
                type: 'output_text',
                text: 'See',
                annotations: [{ type: 'url_citation', url: 'https://a', title: 'A', start_index: 0, end_index: 3 }],
              },
            ],
          },
          { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}' },
        ],
        usage: {
          input_tokens: 10,
          output_tokens: 5,
          input_tokens_details: { cached_tokens: 2 },
          output_tokens_details: { reasoning_tokens: 3 },
        },
      },
      '',
    );
    expect(completion.usage).toEqual({ promptTokens: 10, completionTokens: 5, cachedTokens: 2, reasoningTokens: 3, estimated: false });
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        content: 'See',
        annotations: [{ type: 'url_citation', url_citation: { url: 'https://a', title: 'A', start_index: 0, end_index: 3 } }],
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        reasoning: 'Thought',
        reasoning_details: [
          { type: 'reasoning.summary', summary: 'Thought', id: 'rs_1', format: 'openai-responses-v1', index: 0 },
          { type: 'reasoning.encrypted', data: 'gAAA', id: 'rs_1', format: 'openai-responses-v1', index: 1 },
        ],
      },
    });
  });

  it('maps incomplete to the length and content_filter finish reasons', () => {
    const length = normalizeResponsesObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [] }, 'x');
    expect(length.choices[0]).toMatchObject({ finish_reason: 'length', native_finish_reason: 'max_output_tokens' });
    expect(length.usage.estimated).toBe(true);
    expect(
      normalizeResponsesObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' }, output: [] }, 'x').choices[0]!
        .finish_reason,
    ).toBe('content_filter');
  });
});

async function* sse(...events: Array<Record<string, unknown>>): AsyncGenerator<string> {
  for (const event of events) yield `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
}

async function collect(text: AsyncIterable<string>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of openAiResponsesStreamEvents('sim', text)) events.push(event);
  return events;
}

describe('OpenAI Responses stream -> stream events', () => {
  it('yields text, tool-call fragments, reasoning, the finish chunk and the usage', async () => {
    const events = await collect(
      sse(
        { type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [] } },
        { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', delta: 'Hmm' },
        {
          type: 'response.output_item.done',
          output_index: 0,
          item: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Hmm' }], encrypted_content: 'gAAA' },
        },
        { type: 'response.output_text.delta', item_id: 'msg_1', delta: 'Hi' },
        {
          type: 'response.output_item.added',
          output_index: 2,
          item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '' },
        },
        { type: 'response.function_call_arguments.delta', item_id: 'fc_1', delta: '{}' },
        {
          type: 'response.completed',
          response: { status: 'completed', service_tier: 'default', usage: { input_tokens: 4, output_tokens: 2 } },
        },
      ),
    );
    expect(events.map((event) => (event.type === 'chunk' ? event.choices[0]!.delta : event))).toEqual([
      { reasoning: 'Hmm' },
      {
        reasoning_details: [
          { type: 'reasoning.summary', summary: 'Hmm', id: 'rs_1', format: 'openai-responses-v1', index: 0 },
          { type: 'reasoning.encrypted', data: 'gAAA', id: 'rs_1', format: 'openai-responses-v1', index: 1 },
        ],
      },
      { content: 'Hi' },
      { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{}' } }] },
      {},
      { type: 'usage', usage: { promptTokens: 4, completionTokens: 2, cachedTokens: 0, reasoningTokens: 0, estimated: false } },
    ]);
    const finish = events[5]!;
    expect(finish.type === 'chunk' && finish.choices[0]).toMatchObject({ finish_reason: 'tool_calls', native_finish_reason: 'completed' });
  });

  it('throws on an error event, on response.failed, and on a stream without a terminal event', async () => {
    await expect(
      collect(sse({ type: 'response.output_text.delta', delta: 'a' }, { type: 'error', code: 'server_error', message: 'boom' })),
    ).rejects.toBeInstanceOf(UpstreamFailure);
    await expect(
      collect(sse({ type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'boom' } } })),
    ).rejects.toBeInstanceOf(UpstreamFailure);
    await expect(collect(sse({ type: 'response.output_text.delta', delta: 'a' }))).rejects.toMatchObject({
      gatewayError: { errorType: 'provider_unavailable' },
    });
  });
});
