import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { encodeReasoningContent } from './reasoning-content.js';
import { translateResponsesRequest } from './responses-request.js';

const translate = (body: Record<string, unknown>) => translateResponsesRequest({ model: 'sim/gpt-4o-mini', ...body }, 'ws-1');

function refusal(body: Record<string, unknown>): GatewayError {
  try {
    translate(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('Responses request -> internal form (chat body)', () => {
  it('turns instructions and a string input into system and user messages, and maps the renamed fields', () => {
    const { chatBody, options } = translate({
      instructions: 'Be brief.',
      input: 'Hello',
      max_output_tokens: 100,
      top_logprobs: 3,
      temperature: 0.2,
      models: ['sim/claude-sonnet'],
      provider: { sort: 'price' },
      text: { format: { type: 'json_schema', name: 'city', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
      reasoning: { effort: 'high', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      truncation: 'auto',
    });
    expect(chatBody).toEqual({
      model: 'sim/gpt-4o-mini',
      models: ['sim/claude-sonnet'],
      provider: { sort: 'price' },
      temperature: 0.2,
      reasoning: { effort: 'high', summary: 'auto' },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
      max_completion_tokens: 100,
      logprobs: true,
      top_logprobs: 3,
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema: { type: 'object' }, strict: true } },
      verbosity: 'low',
    });
    expect(options).toEqual({ includeEncryptedReasoning: true, truncation: 'auto', clientTools: new Map() });
  });

  it('turns function_call items into the assistant turn tool calls and function_call_output into tool messages', () => {
    const { chatBody } = translate({
      tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: true }],
      tool_choice: { type: 'function', name: 'get_weather' },
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris and Rome?' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', id: 'fc_2', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'call_a', output: 'sunny' },
        { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: 'rainy' }] },
      ],
    });
    expect(chatBody.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: true } },
    ]);
    expect(chatBody.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(chatBody.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_b', content: 'rainy' },
    ]);
  });

  it('turns images and files into chat content parts', () => {
    const { chatBody } = translate({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'low' },
            { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
          ],
        },
      ],
    });
    expect((chatBody.messages as unknown[])[0]).toEqual({
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
      ],
    });
  });

  it('gives reasoning items back to the assistant turn that follows, as the reasoning details they came from', () => {
    const details = [{ type: 'reasoning.text', text: 'thinking', signature: 'sig', format: 'anthropic-claude-v1', index: 0 }];
    const { chatBody } = translate({
      input: [
        { role: 'user', content: 'Why?' },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 'thinking' }],
          encrypted_content: encodeReasoningContent(details),
        },
        { type: 'message', role: 'assistant', content: 'Because.' },
        { type: 'reasoning', id: 'rs_openai', summary: [], encrypted_content: 'gAAAA-openai' },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      ],
    });
    const messages = chatBody.messages as Array<Record<string, unknown>>;
    expect(messages[1]).toMatchObject({
      role: 'assistant',
      content: 'Because.',
      reasoning_details: [
        ...details,
        { type: 'reasoning.encrypted', data: 'gAAAA-openai', id: 'rs_openai', format: 'openai-responses-v1', index: 0 },
      ],
    });
    expect(refusal({ input: [{ type: 'reasoning', summary: [], encrypted_content: 'gwr1.not-base64-json' }] }).message).toMatch(/altered/);
  });

  it('hashes safety_identifier per workspace and turns prompt into the preset with its variables', () => {
    const { chatBody, presetVariables } = translate({
      input: 'Hi',
      safety_identifier: 'alice',
      prompt: { id: 'support', variables: { name: 'Ada', topic: { type: 'input_text', text: 'billing' } } },
    });
    expect(chatBody.safety_identifier).toMatch(/^[0-9a-f]{32}$/);
    expect(chatBody.safety_identifier).not.toBe(
      translateResponsesRequest({ model: 'm', input: 'Hi', safety_identifier: 'alice' }, 'ws-2').chatBody.safety_identifier,
    );
    expect(chatBody.preset).toBe('support');
    expect(presetVariables).toEqual({ name: 'Ada', topic: 'billing' });
    expect(
      refusal({ input: 'Hi', prompt: { id: 'support', variables: { logo: { type: 'input_image', image_url: 'https://x' } } } }).message,
    ).toMatch(/prompt\.variables\.logo/);
  });

  it('refuses with a 400 naming it what it cannot serve: other tool kinds, item references, stored files', () => {
    // A web_search_call item of an earlier response, sent back as input, needs nothing upstream.
    expect(
      translate({
        input: [
          { role: 'user', content: 'Search for x' },
          { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
          { role: 'assistant', content: 'X is y.' },
          { role: 'user', content: 'Thanks' },
        ],
      }).chatBody.messages,
    ).toEqual([
      { role: 'user', content: 'Search for x' },
      { role: 'assistant', content: 'X is y.' },
      { role: 'user', content: 'Thanks' },
    ]);
    // Server tools pass to the internal form as they are; extractServerTools judges them.
    expect(translate({ input: 'Hi', tools: [{ type: 'service:web_search' }], max_tool_calls: 3 }).chatBody).toMatchObject({
      tools: [{ type: 'service:web_search' }],
      max_tool_calls: 3,
    });
    expect(refusal({ input: 'Hi', tools: [{ type: 'file_search' }] }).message).toMatch(
      /tools\[0\]: tools of type file_search are not supported: it searches vector stores/,
    );
    // Plugins pass to the internal form; the plugin pipeline judges and runs them.
    expect(translate({ input: 'Hi', plugins: [{ id: 'web' }, { id: 'moderation' }] }).chatBody).toMatchObject({
      plugins: [{ id: 'web' }, { id: 'moderation' }],
    });
    expect(refusal({ input: [{ type: 'item_reference', id: 'msg_1' }] }).message).toMatch(/item_reference/);
    expect(refusal({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] }).message).toMatch(/file_id/);
    expect(refusal({ input: [{ type: 'computer_call_output' }] }).message).toMatch(/computer_call_output/);
    expect(refusal({}).message).toMatch(/input is required/);
  });
});
