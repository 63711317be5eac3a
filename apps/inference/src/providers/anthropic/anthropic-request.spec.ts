import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { buildAnthropicBody, DEFAULT_MAX_TOKENS, thinkingBudgetFor } from './anthropic-request.js';

/**
 * Request translation, built from the providers' documented examples:
 * - OpenAI function calling (https://platform.openai.com/docs/guides/function-calling): the
 *   get_weather tool, the assistant tool call `call_12345xyz` and its `role: tool` result;
 * - Anthropic tool use (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview):
 *   the same round trip as `tool_use` / `tool_result` blocks, tool_choice any/tool;
 * - Anthropic vision (https://docs.anthropic.com/en/docs/build-with-claude/vision): base64 and
 *   url image sources.
 */
const getWeather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get current temperature for a given location.',
    parameters: {
      type: 'object',
      properties: { location: { type: 'string', description: 'City and country e.g. Bogotá, Colombia' } },
      required: ['location'],
      additionalProperties: false,
    },
    strict: true,
  },
};

const build = (body: Record<string, unknown>, endUserHash?: string) =>
  buildAnthropicBody(body, 'claude-sonnet-4-5', { stream: false, endUserHash });

function badRequest(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    return error as GatewayError;
  }
  throw new Error('expected a 400');
}

describe('buildAnthropicBody', () => {
  it('moves system and developer messages to the top-level system and requires max_tokens', () => {
    const upstream = build({
      model: 'sim/claude-sonnet',
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer briefly.' }] },
        { role: 'user', content: 'Hello' },
      ],
    });
    expect(upstream).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: DEFAULT_MAX_TOKENS,
      system: [
        { type: 'text', text: 'You are a helpful assistant.' },
        { type: 'text', text: 'Answer briefly.' },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    });
  });

  it('takes max_completion_tokens over max_tokens, and maps stop, temperature, top_p and top_k', () => {
    const upstream = build({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 50,
      max_completion_tokens: 80,
      stop: 'END',
      temperature: 1.6,
      top_p: 0.9,
      top_k: 40,
      seed: 7,
      metadata: { trace: 'x' },
    });
    expect(upstream).toMatchObject({ max_tokens: 80, stop_sequences: ['END'], temperature: 1, top_p: 0.9, top_k: 40 });
    // Fields Anthropic does not know are not sent (it refuses unknown fields); request metadata is not its metadata.
    expect(upstream).not.toHaveProperty('seed');
    expect(upstream).not.toHaveProperty('metadata');
    expect(build({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], stop: ['a', 'b'] }).stop_sequences).toEqual(['a', 'b']);
  });

  it('sends the hashed end user as metadata.user_id, never the raw id', () => {
    const upstream = build({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], user: 'alice@example.com' }, 'a1b2c3');
    expect(upstream.metadata).toEqual({ user_id: 'a1b2c3' });
    expect(JSON.stringify(upstream)).not.toContain('alice@example.com');
    expect(build({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], user: 'alice' })).not.toHaveProperty('metadata');
  });

  it('translates the documented function-calling round trip into tool_use / tool_result blocks', () => {
    const upstream = build({
      model: 'm',
      messages: [
        { role: 'user', content: 'What is the weather like in Paris today?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_12345xyz', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris, France"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_12345xyz', content: '14' },
      ],
      tools: [getWeather],
      tool_choice: 'required',
    });
    expect(upstream.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Get current temperature for a given location.',
        input_schema: getWeather.function.parameters,
      },
    ]);
    expect(upstream.tool_choice).toEqual({ type: 'any' });
    expect(upstream.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is the weather like in Paris today?' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_12345xyz', name: 'get_weather', input: { location: 'Paris, France' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_12345xyz', content: '14' }] },
    ]);
  });

  it('merges consecutive tool results (and a following user message) into one user turn, text before tool_use', () => {
    const upstream = build({
      model: 'm',
      messages: [
        { role: 'user', content: 'Weather in Paris and Bogotá?' },
        {
          role: 'assistant',
          content: 'Let me check both.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris, France"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Bogotá, Colombia"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '14' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '18' }] },
        { role: 'user', content: 'In Celsius please.' },
      ],
      tools: [getWeather],
    });
    const messages = upstream.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]!.content.map((block) => block.type)).toEqual(['text', 'tool_use', 'tool_use']);
    expect(messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'call_1', content: '14' },
      { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: '18' }] },
      { type: 'text', text: 'In Celsius please.' },
    ]);
  });

  it('maps every tool_choice and parallel_tool_calls', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'Hi' }], tools: [getWeather] };
    expect(build({ ...base, tool_choice: 'auto' }).tool_choice).toEqual({ type: 'auto' });
    expect(build({ ...base, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(build({ ...base, tool_choice: { type: 'function', function: { name: 'get_weather' } } }).tool_choice).toEqual({
      type: 'tool',
      name: 'get_weather',
    });
    expect(build({ ...base, parallel_tool_calls: false }).tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(build(base)).not.toHaveProperty('tool_choice');
    // tool_choice without tools means nothing to Anthropic (and it would refuse it).
    expect(build({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], tool_choice: 'auto' })).not.toHaveProperty('tool_choice');
  });

  it('turns image_url parts (data: and http URLs) into image blocks, as the vision docs show them', () => {
    const upstream = build({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg==' } },
            {
              type: 'image_url',
              image_url: { url: 'https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg' },
            },
            { type: 'text', text: 'Describe these images.' },
          ],
        },
      ],
    });
    expect((upstream.messages as Array<{ content: unknown }>)[0]!.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQSkZJRg==' } },
      {
        type: 'image',
        source: { type: 'url', url: 'https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg' },
      },
      { type: 'text', text: 'Describe these images.' },
    ]);
    const error = badRequest(() =>
      build({ model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }] }),
    );
    expect(error.errorType).toBe('invalid_image');
  });

  it('replays reasoning_details as signed thinking blocks before the tool_use of an assistant turn', () => {
    const upstream = build({
      model: 'm',
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          reasoning_details: [
            { type: 'reasoning.text', text: 'I should call the tool.', signature: 'sig==', format: 'anthropic-claude-v1', index: 0 },
          ],
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '14' },
      ],
      tools: [getWeather],
    });
    expect((upstream.messages as Array<{ content: unknown }>)[1]!.content).toEqual([
      { type: 'thinking', thinking: 'I should call the tool.', signature: 'sig==' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
    ]);
  });

  it('refuses what Anthropic cannot do with a clear 400', () => {
    const user = [{ role: 'user', content: 'Hi' }];
    expect(badRequest(() => build({ model: 'm', messages: user, n: 2 })).message).toMatch(/n greater than 1/);
    expect(badRequest(() => build({ model: 'm', messages: [{ role: 'system', content: 'only a system prompt' }] })).message).toMatch(
      /at least one user/,
    );
    expect(badRequest(() => build({ model: 'm', messages: user, tools: [{ type: 'web_search' }] })).message).toMatch(/function tool/);
    const badArguments = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: 'not json' } }] },
    ];
    expect(badRequest(() => build({ model: 'm', messages: badArguments })).message).toMatch(/tool_calls\[0\]\.function\.arguments/);
  });

  it('adds stream: true only for streamed calls', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } };
    expect(buildAnthropicBody(body, 'x', { stream: true })).toMatchObject({ stream: true });
    expect(buildAnthropicBody(body, 'x', { stream: true })).not.toHaveProperty('stream_options');
    expect(buildAnthropicBody(body, 'x', { stream: false })).not.toHaveProperty('stream');
  });
});

describe('reasoning -> thinking budget', () => {
  const user = [{ role: 'user', content: 'Are there infinitely many primes p with p mod 4 == 3?' }];

  it('takes reasoning.max_tokens as the budget and raises max_tokens above it when none was asked', () => {
    const upstream = build({ model: 'm', messages: user, reasoning: { max_tokens: 10000 } });
    expect(upstream.thinking).toEqual({ type: 'enabled', budget_tokens: 10000 });
    expect(upstream.max_tokens).toBe(10000 + DEFAULT_MAX_TOKENS);
  });

  it('gives an effort its share of max_tokens, within 1024..128000', () => {
    expect(thinkingBudgetFor({ reasoning: { effort: 'high' } }, 20000)).toBe(16000);
    expect(thinkingBudgetFor({ reasoning_effort: 'medium' }, 20000)).toBe(10000);
    expect(thinkingBudgetFor({ reasoning: { effort: 'low' } }, 20000)).toBe(4000);
    expect(thinkingBudgetFor({ reasoning: { effort: 'low' } }, undefined)).toBe(1024); // 20 % of 4096 is below the minimum
    expect(thinkingBudgetFor({ reasoning: { effort: 'high' } }, 1_000_000)).toBe(128_000);
    expect(thinkingBudgetFor({ reasoning: { enabled: true } }, 8000)).toBe(4000);
  });

  it('keeps thinking off when not asked, when disabled, or when max_tokens leaves no room for 1024', () => {
    expect(thinkingBudgetFor({}, 8000)).toBeUndefined();
    expect(thinkingBudgetFor({ reasoning: { effort: 'none' } }, 8000)).toBeUndefined();
    expect(thinkingBudgetFor({ reasoning: { max_tokens: 4000, enabled: false } }, 8000)).toBeUndefined();
    expect(thinkingBudgetFor({ reasoning: { effort: 'high' } }, 1000)).toBeUndefined();
    // An explicit budget never eats the whole max_tokens: Anthropic wants budget < max_tokens.
    expect(thinkingBudgetFor({ reasoning: { max_tokens: 5000 } }, 3000)).toBe(2999);
  });

  it('drops temperature and top_k with thinking on (Anthropic refuses them) and keeps top_p >= 0.95', () => {
    const upstream = build({
      model: 'm',
      messages: user,
      reasoning: { effort: 'high' },
      temperature: 0.2,
      top_k: 5,
      top_p: 0.97,
      max_tokens: 16000,
    });
    expect(upstream).toMatchObject({ max_tokens: 16000, thinking: { type: 'enabled', budget_tokens: 12800 }, top_p: 0.97 });
    expect(upstream).not.toHaveProperty('temperature');
    expect(upstream).not.toHaveProperty('top_k');
  });

  describe('response_format and service tier', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

    it('sends a json_schema response format as Anthropic structured outputs', () => {
      const body = build({
        messages: [{ role: 'user', content: 'Where?' }],
        response_format: { type: 'json_schema', json_schema: { name: 'place', schema } },
      });
      expect(body.output_config).toEqual({ format: { type: 'json_schema', schema } });
      expect(build({ messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'text' } })).not.toHaveProperty('output_config');
    });

    it('refuses json_object (no schema-free JSON mode at Anthropic) instead of ignoring it', () => {
      expect(() => build({ messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'json_object' } })).toThrow(
        /json_object.*not supported.*json_schema/,
      );
      expect(() =>
        build({ messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'json_schema', json_schema: { name: 'x' } } }),
      ).toThrow(GatewayError);
    });

    it('sends the tier the adapter chose', () => {
      expect(
        buildAnthropicBody({ messages: [{ role: 'user', content: 'Hi' }] }, 'claude', { stream: false, serviceTier: 'auto' }).service_tier,
      ).toBe('auto');
      expect(build({ messages: [{ role: 'user', content: 'Hi' }] })).not.toHaveProperty('service_tier');
    });
  });
});

describe('prompt caching as Anthropic cache_control blocks', () => {
  const long = 'Context. '.repeat(10);
  const conversation = [
    { role: 'system', content: [{ type: 'text', text: long, cache_control: { type: 'ephemeral' } }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'First question' },
        { type: 'text', text: 'Second part', prompt_cache_breakpoint: { ttl: '1h' } },
      ],
    },
    { role: 'assistant', content: 'An answer' },
    { role: 'user', content: 'Follow-up' },
  ];

  it('keeps block markers (cache_control and prompt_cache_breakpoint) on their blocks', () => {
    const body = build({ messages: conversation });
    expect(body.system).toEqual([{ type: 'text', text: long, cache_control: { type: 'ephemeral' } }]);
    const first = (body.messages as Array<{ content: Array<Record<string, unknown>> }>)[0]!.content;
    expect(first[1]).toEqual({ type: 'text', text: 'Second part', cache_control: { type: 'ephemeral', ttl: '1h' } });
  });

  it('marks the last cacheable block for the top-level control, unless the mode is explicit', () => {
    const automatic = build({ messages: conversation, cache_control: { type: 'ephemeral', ttl: '5m' } });
    const turns = automatic.messages as Array<{ content: Array<Record<string, unknown>> }>;
    expect(turns[turns.length - 1]!.content.at(-1)).toEqual({
      type: 'text',
      text: 'Follow-up',
      cache_control: { type: 'ephemeral', ttl: '5m' },
    });
    const explicit = build({
      messages: conversation,
      cache_control: { type: 'ephemeral' },
      prompt_cache_options: { mode: 'explicit', ttl: '1h' },
    });
    const explicitTurns = explicit.messages as Array<{ content: Array<Record<string, unknown>> }>;
    expect(explicitTurns[explicitTurns.length - 1]!.content.at(-1)).not.toHaveProperty('cache_control');
    // The request-level TTL fills markers that name none.
    expect(explicit.system).toEqual([{ type: 'text', text: long, cache_control: { type: 'ephemeral', ttl: '1h' } }]);
  });

  it('refuses more than four breakpoints and malformed controls with 400', () => {
    const many = Array.from({ length: 5 }, (_, i) => ({ type: 'text', text: `part ${i}`, cache_control: { type: 'ephemeral' } }));
    expect(() => build({ messages: [{ role: 'user', content: many }] })).toThrow(/At most 4 prompt cache breakpoints/);
    expect(() => build({ messages: conversation, cache_control: { type: 'persistent' } })).toThrow(GatewayError);
    expect(() => build({ messages: conversation, cache_control: { type: 'ephemeral', ttl: '2h' } })).toThrow(/ttl/);
  });
});
