import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../provider-adapter.js';
import { buildConverseInput, converseWireBody } from './bedrock-request.js';
import { bedrockFinishReason, normalizeConverseOutput } from './bedrock-response.js';
import { bedrockStreamEvents } from './bedrock-stream.js';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const options = { excludeReasoning: false, promptText: () => '' };

async function collect(events: ConverseStreamOutput[]): Promise<StreamEvent[]> {
  async function* source() {
    yield* events;
  }
  const out: StreamEvent[] = [];
  for await (const event of bedrockStreamEvents('sim', source(), { excludeReasoning: false })) out.push(event);
  return out;
}

describe('Converse request', () => {
  it('puts system apart, merges tool results into one user turn, and cache markers as cachePoints after their block', () => {
    const input = buildConverseInput(
      {
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Rules', cache_control: { type: 'ephemeral' } }] },
          { role: 'user', content: 'Weather in Paris and Rome' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'w', arguments: '{"city":"Paris"}' } },
              { id: 'b', type: 'function', function: { name: 'w', arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'a', content: 'sunny' },
          { role: 'tool', tool_call_id: 'b', content: 'rainy' },
        ],
        tools: [{ type: 'function', function: { name: 'w', parameters: { type: 'object' } } }],
        max_tokens: 100,
        stop: ['END'],
        temperature: 1.5,
      },
      MODEL,
    );
    expect(input.system).toEqual([{ text: 'Rules' }, { cachePoint: { type: 'default' } }]);
    expect(input.messages!.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(input.messages![1]!.content).toEqual([
      { toolUse: { toolUseId: 'a', name: 'w', input: { city: 'Paris' } } },
      { toolUse: { toolUseId: 'b', name: 'w', input: { city: 'Rome' } } },
    ]);
    expect(input.messages![2]!.content).toEqual([
      { toolResult: { toolUseId: 'a', content: [{ text: 'sunny' }] } },
      { toolResult: { toolUseId: 'b', content: [{ text: 'rainy' }] } },
    ]);
    expect(input.inferenceConfig).toEqual({ maxTokens: 100, stopSequences: ['END'], temperature: 1 });
    expect(input.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'w', inputSchema: { json: { type: 'object' } } } }] });
  });

  it('maps tool_choice to Converse, and refuses "none" once tools are in the conversation', () => {
    const tools = [{ type: 'function', function: { name: 'w', parameters: { type: 'object' } } }];
    const ask = [{ role: 'user', content: 'hi' }];
    expect(buildConverseInput({ messages: ask, tools, tool_choice: 'required' }, MODEL).toolConfig?.toolChoice).toEqual({ any: {} });
    expect(
      buildConverseInput({ messages: ask, tools, tool_choice: { type: 'function', function: { name: 'w' } } }, MODEL).toolConfig
        ?.toolChoice,
    ).toEqual({
      tool: { name: 'w' },
    });
    expect(buildConverseInput({ messages: ask, tools, tool_choice: 'none' }, MODEL).toolConfig).toBeUndefined();
    const withCalls = [
      ...ask,
      { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'w', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'a', content: 'x' },
    ];
    expect(() => buildConverseInput({ messages: withCalls, tools, tool_choice: 'none' }, MODEL)).toThrow(/tool_choice "none"/);
  });

  it('sends images as bytes with their format, refuses other formats, and thinking through additionalModelRequestFields', () => {
    const webp = `data:image/webp;base64,${Buffer.from('img').toString('base64')}`;
    const input = buildConverseInput(
      {
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: webp } }] }],
        reasoning: { max_tokens: 2048 },
        max_tokens: 8000,
      },
      MODEL,
    );
    expect(input.messages![0]!.content![0]).toEqual({ image: { format: 'webp', source: { bytes: Buffer.from('img') } } });
    expect(input.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(converseWireBody(input).messages).toEqual([
      { role: 'user', content: [{ image: { format: 'webp', source: { bytes: Buffer.from('img').toString('base64') } } }] },
    ]);
    const tiff = `data:image/tiff;base64,${Buffer.from('img').toString('base64')}`;
    expect(() =>
      buildConverseInput({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: tiff } }] }] }, MODEL),
    ).toThrow(/png, jpeg, gif or webp/);
  });
});

describe('Converse answer', () => {
  it('turns parallel toolUse blocks into indexed tool calls', () => {
    const completion = normalizeConverseOutput(
      {
        output: {
          message: {
            role: 'assistant',
            content: [
              { toolUse: { toolUseId: 't1', name: 'w', input: { city: 'Paris' } } },
              { toolUse: { toolUseId: 't2', name: 'w', input: { city: 'Rome' } } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      },
      options,
    );
    expect(completion.choices[0]!.message.tool_calls).toEqual([
      { index: 0, id: 't1', type: 'function', function: { name: 'w', arguments: '{"city":"Paris"}' } },
      { index: 1, id: 't2', type: 'function', function: { name: 'w', arguments: '{"city":"Rome"}' } },
    ]);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('maps every stop reason, keeping the native one', () => {
    expect(
      [
        'end_turn',
        'stop_sequence',
        'tool_use',
        'max_tokens',
        'model_context_window_exceeded',
        'guardrail_intervened',
        'content_filtered',
        'malformed_tool_use',
      ].map(bedrockFinishReason),
    ).toEqual(['stop', 'stop', 'tool_calls', 'length', 'length', 'content_filter', 'content_filter', 'error']);
  });

  it('streams two tool calls with their own indexes, from their content block indexes', async () => {
    const events = await collect([
      { messageStart: { role: 'assistant' } },
      { contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 't1', name: 'w' } } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":' } } } },
      { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't2', name: 'w' } } } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":"Rome"}' } } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '"Paris"}' } } } },
      { messageStop: { stopReason: 'tool_use' } },
      { metadata: { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7, cacheReadInputTokens: 2 }, metrics: { latencyMs: 1 } } },
    ] as ConverseStreamOutput[]);
    const calls = events.flatMap((e) =>
      e.type === 'chunk' ? ((e.choices[0]?.delta.tool_calls as Array<{ index: number; function: { arguments: string } }>) ?? []) : [],
    );
    const byIndex = (index: number) =>
      calls
        .filter((c) => c.index === index)
        .map((c) => c.function.arguments)
        .join('');
    expect(byIndex(0)).toBe('{"city":"Paris"}');
    expect(byIndex(1)).toBe('{"city":"Rome"}');
    expect(events.at(-1)).toEqual({
      type: 'usage',
      usage: { promptTokens: 5, completionTokens: 4, cachedTokens: 2, cacheWriteTokens: 0, reasoningTokens: 0, estimated: false },
    });
  });

  it('fails a stream that ends without messageStop, and one that carries an exception', async () => {
    await expect(collect([{ messageStart: { role: 'assistant' } }] as ConverseStreamOutput[])).rejects.toMatchObject({ retryable: false });
    await expect(
      collect([
        { messageStart: { role: 'assistant' } },
        { throttlingException: { message: 'slow down' } },
      ] as unknown as ConverseStreamOutput[]),
    ).rejects.toMatchObject({ retryable: false, gatewayError: { status: 429, errorType: 'rate_limit_exceeded' } });
  });
});
