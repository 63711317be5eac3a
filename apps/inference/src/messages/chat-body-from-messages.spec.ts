import { describe, expect, it } from 'vitest';
import { chatBodyFromMessages } from './chat-body-from-messages.js';

describe('chatBodyFromMessages', () => {
  it('translates system, turns, tools, tool results, thinking, stop sequences and the end user', () => {
    const chat = chatBodyFromMessages({
      model: 'sim/gpt-4o-mini',
      max_tokens: 100,
      system: [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '18C' }] },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            { type: 'text', text: 'And now?' },
          ],
        },
      ],
      tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 2048 },
      stop_sequences: ['END'],
      temperature: 0.5,
      metadata: { user_id: 'user-7' },
      provider: { sort: 'price' },
      stream: true,
    });
    expect(chat).toEqual({
      model: 'sim/gpt-4o-mini',
      max_tokens: 100,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: 'Let me look.',
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          reasoning_details: [{ type: 'reasoning.text', text: 'hmm', signature: 'sig', format: 'anthropic-claude-v1', index: 0 }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '18C' },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            { type: 'text', text: 'And now?' },
          ],
        },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
      reasoning: { max_tokens: 2048 },
      stop: ['END'],
      temperature: 0.5,
      user: 'user-7',
      provider: { sort: 'price' },
      stream: true,
    });
  });

  it('keeps Anthropic-only fields and server tools out of the translated fields, and refuses what it cannot place', () => {
    const chat = chatBodyFromMessages({
      model: 'm',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'hi' }],
      container: 'c',
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
    });
    expect(chat).not.toHaveProperty('container');
    expect(chat.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
    expect(() =>
      chatBodyFromMessages({
        model: 'm',
        max_tokens: 1,
        messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'x', name: 'y', input: {} }] }],
      }),
    ).toThrow(expect.objectContaining({ status: 400 }));
    expect(() =>
      chatBodyFromMessages({
        model: 'm',
        max_tokens: 1,
        messages: [{ role: 'user', content: 'hi' }],
        thinking: { type: 'enabled', budget_tokens: 10 },
      }),
    ).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('gateway-only features on /v1/messages', () => {
  it('refuses plugins, service: tools and the server-tool loop bounds with 400s naming them', () => {
    const base = { model: 'sim/claude-sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };
    expect(() => chatBodyFromMessages({ ...base, plugins: [{ id: 'web' }] })).toThrow(
      /plugins are not supported on \/v1\/messages \(web\)/,
    );
    expect(() => chatBodyFromMessages({ ...base, tools: [{ type: 'service:web_search' }] })).toThrow(
      /service:web_search is run by the service on \/v1\/chat\/completions and \/v1\/responses/,
    );
    expect(() => chatBodyFromMessages({ ...base, max_tool_calls: 3 })).toThrow(/max_tool_calls bounds the server-tool loop/);
    expect(() => chatBodyFromMessages({ ...base, tools: [{ type: 'web_search_20250305', name: 'web_search' }] })).not.toThrow();
  });
});
