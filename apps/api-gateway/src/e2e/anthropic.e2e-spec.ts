import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/** The openai client through the gateway on a model whose provider speaks Anthropic's Messages API. */
const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const model = 'sim/claude-sonnet';
const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Get current temperature for a given location.',
      parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
    },
  },
];

describe('Anthropic-format model through the gateway', () => {
  it('answers a chat completion with the system prompt moved and usage priced from the catalog', async () => {
    const completion = await openai.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Tell me about gateways' },
      ],
    });
    const choice = completion.choices[0]! as OpenAI.Chat.Completions.ChatCompletion.Choice & { native_finish_reason?: string };
    expect(completion.model).toBe(model);
    expect((completion as unknown as { provider: string }).provider).toBe('Simulator (Anthropic format)');
    expect(choice.message.content).toMatch(/^Simulated reply to: Tell me about gateways/);
    expect(choice.finish_reason).toBe('stop');
    expect(choice.native_finish_reason).toBe('end_turn');
    const usage = completion.usage as unknown as Record<string, any>;
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    // sim/claude-sonnet: 0.000003 per prompt token, 0.000015 per completion token.
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.000003 + usage.completion_tokens * 0.000015, 12);
  });

  it('maps max_tokens to Anthropic and its max_tokens stop back to length', async () => {
    const completion = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Tell me about gateways' }],
      max_tokens: 3,
    });
    const choice = completion.choices[0]! as OpenAI.Chat.Completions.ChatCompletion.Choice & { native_finish_reason?: string };
    expect(choice.finish_reason).toBe('length');
    expect(choice.native_finish_reason).toBe('max_tokens');
    expect(completion.usage!.completion_tokens).toBe(3);
  });

  it('runs a tool round trip: tool_calls out, the tool result back in', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather like in Paris today?' }];
    const first = await openai.chat.completions.create({ model, messages, tools, tool_choice: 'required' });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const toolCall = first.choices[0]!.message.tool_calls![0]!;
    expect(toolCall.type).toBe('function');
    if (toolCall.type !== 'function') throw new Error('not a function call');
    expect(toolCall.function.name).toBe('get_weather');
    expect(typeof toolCall.function.arguments).toBe('string');
    expect(typeof JSON.parse(toolCall.function.arguments).location).toBe('string');

    messages.push(first.choices[0]!.message);
    messages.push({ role: 'tool', tool_call_id: toolCall.id, content: '14 degrees Celsius' });
    const second = await openai.chat.completions.create({ model, messages, tools });
    expect(second.choices[0]!.message.content).toBe('Based on the tool result: "14 degrees Celsius".');
    expect(second.choices[0]!.finish_reason).toBe('stop');
  });

  it('streams text and tool-call deltas the openai client reassembles', async () => {
    const stream = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather' } });
    expect(toolDeltas[0]!.id).toMatch(/^toolu_/);
    expect(toolDeltas.length).toBeGreaterThan(2);
    const args = toolDeltas.map((delta) => delta.function?.arguments ?? '').join('');
    expect(typeof JSON.parse(args).location).toBe('string');
    const finish = chunks.filter((chunk) => chunk.choices.length > 0).at(-1)!;
    expect(finish.choices[0]).toMatchObject({ finish_reason: 'tool_calls', native_finish_reason: 'tool_use' });
    const usage = chunks.at(-1)!.usage as unknown as Record<string, number>;
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.000003 + usage.completion_tokens * 0.000015, 12);
  });

  it('streams plain text identical to the non-streamed answer', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Tell me about gateways' }];
    const stream = await openai.chat.completions.create({ model, messages, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    const whole = await openai.chat.completions.create({ model, messages });
    expect(text).toBe(whole.choices[0]!.message.content);
  });

  it('drops a parameter the model does not support and names it in routing metadata; require_parameters makes it a 400', async () => {
    const body = { model, messages: [{ role: 'user', content: 'hi' }], n: 2, top_a: 0.5 };
    const dropped = await call('/chat/completions', { body, headers: { 'x-service-metadata': 'enabled' } });
    expect(dropped.status).toBe(200);
    const answer = dropped.body as { choices: unknown[]; service_metadata: { dropped_parameters: string[]; summary: string } };
    expect(answer.choices).toHaveLength(1);
    expect(answer.service_metadata.dropped_parameters).toEqual(['n', 'top_a']);
    expect(answer.service_metadata.summary).toMatch(/dropped unsupported parameters: n, top_a/);

    const refused = await call('/chat/completions', { body: { ...body, provider: { require_parameters: true } } });
    expect(refused.status).toBe(400);
    expect(envelopeOf(refused)).toMatchObject({
      message: expect.stringMatching(/n, top_a/),
      metadata: { reason: 'unsupported_parameters', parameters: ['n', 'top_a'] },
    });
  });
});
