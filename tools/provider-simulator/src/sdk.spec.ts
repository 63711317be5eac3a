import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from './index.ts';
import { countTokens } from './tokens.ts';

let sim: RunningSimulator;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  sim = await startSimulator();
  openai = new OpenAI({ apiKey: 'sk-sim', baseURL: `${sim.url}/openai/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'sk-ant-sim', baseURL: `${sim.url}/anthropic`, maxRetries: 0 });
});
afterAll(() => sim.close());

describe('real openai client', () => {
  it('creates a chat completion', async () => {
    const res = await openai.chat.completions.create({ model: 'sim-gpt', messages: [{ role: 'user', content: 'Tell me a joke' }] });
    expect(res.model).toBe('sim-gpt');
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(res.choices[0]!.message.content).toMatch(/^Simulated reply to: Tell me a joke\./);
    expect(res.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 24, total_tokens: 34 });
  });

  it('streams with include_usage', async () => {
    const stream = await openai.chat.completions.create({
      model: 'sim-gpt',
      messages: [{ role: 'user', content: 'Tell me a joke' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(chunks).toBeGreaterThan(3);
    expect(text).toMatch(/^Simulated reply to: Tell me a joke\./);
    expect(countTokens(text)).toBe(24);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 24, total_tokens: 34 });
  });

  it('calls tools, streamed and not', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'add',
          parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' }, note: { type: 'string' } } },
        },
      },
    ];
    const res = await openai.chat.completions.create({ model: 'sim-gpt', messages: [{ role: 'user', content: 'add them' }], tools });
    const call = res.choices[0]!.message.tool_calls![0]!;
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ a: 1, b: 1, note: 'add them' });

    const runner = openai.chat.completions.stream({ model: 'sim-gpt', messages: [{ role: 'user', content: 'add them' }], tools });
    const final = await runner.finalChatCompletion();
    const streamed = final.choices[0]!.message.tool_calls![0]!;
    expect(streamed.type === 'function' && streamed.function.name).toBe('add');
    expect(streamed.type === 'function' && JSON.parse(streamed.function.arguments)).toEqual({ a: 1, b: 1, note: 'add them' });
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('creates embeddings as floats and as base64 (decoded by the client)', async () => {
    const floats = await openai.embeddings.create({ model: 'sim-embedding', input: ['alpha', 'beta'], encoding_format: 'float' });
    expect(floats.data).toHaveLength(2);
    expect(floats.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
    const v = floats.data[0]!.embedding;
    expect(v).toHaveLength(16);
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    const decoded = await openai.embeddings.create({ model: 'sim-embedding', input: ['alpha', 'beta'] });
    expect(Array.from(decoded.data[0]!.embedding)).toEqual(v);
    expect(Array.from(decoded.data[1]!.embedding)).not.toEqual(v);
    const dims = await openai.embeddings.create({ model: 'sim-embedding', input: 'alpha', dimensions: 64, encoding_format: 'base64' });
    expect(typeof dims.data[0]!.embedding).toBe('string');
    expect(Buffer.from(dims.data[0]!.embedding as unknown as string, 'base64').length).toBe(64 * 4);
  });

  it('surfaces simulated errors as APIError with status and code', async () => {
    const err = await openai.chat.completions
      .create({ model: 'sim-gpt;status=429', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('rate_limit_exceeded');
  });
});

describe('real anthropic client', () => {
  it('creates a message', async () => {
    const msg = await anthropic.messages.create({
      model: 'claude-sim',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    expect(msg.id).toMatch(/^msg_/);
    expect(msg.model).toBe('claude-sim');
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.content[0]!.type === 'text' && msg.content[0]!.text).toMatch(/^Simulated reply to: Hello there\./);
    // "Be brief." 3 + "Hello there" 2 + 3 per message + 3
    expect(msg.usage).toMatchObject({ input_tokens: 11, output_tokens: 24, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });

  it('streams a message with messages.stream / finalMessage', async () => {
    const stream = anthropic.messages.stream({
      model: 'claude-sim',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    let text = '';
    stream.on('text', (t) => {
      text += t;
    });
    const msg = await stream.finalMessage();
    expect(msg.content[0]!.type === 'text' && msg.content[0]!.text).toBe(text);
    expect(text).toMatch(/^Simulated reply to: Hello there\./);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.usage.output_tokens).toBe(24);
    expect(msg.usage.input_tokens).toBe(8);
  });

  it('streams thinking then text', async () => {
    const stream = anthropic.messages.stream({
      model: 'claude-sim',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'ponder this' }],
    });
    const msg = await stream.finalMessage();
    expect(msg.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const thinking = msg.content[0]!;
    expect(thinking.type === 'thinking' && thinking.thinking).toBe('Thinking about how to answer: ponder this');
    expect(thinking.type === 'thinking' && thinking.signature.length).toBeGreaterThan(10);
    expect(msg.usage.output_tokens).toBe(24 + countTokens('Thinking about how to answer: ponder this'));
  });

  it('uses tools, streamed and not', async () => {
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        description: 'Weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } },
      },
    ];
    const msg = await anthropic.messages.create({
      model: 'claude-sim',
      max_tokens: 100,
      tools,
      messages: [{ role: 'user', content: 'Paris' }],
    });
    expect(msg.stop_reason).toBe('tool_use');
    const block = msg.content[0]!;
    expect(block.type).toBe('tool_use');
    if (block.type !== 'tool_use') return;
    expect(block.id).toMatch(/^toolu_/);
    expect(block.input).toEqual({ city: 'Paris', days: 1 });

    const final = await anthropic.messages
      .stream({ model: 'claude-sim', max_tokens: 100, tools, messages: [{ role: 'user', content: 'Paris' }] })
      .finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris', days: 1 } });

    const after = await anthropic.messages.create({
      model: 'claude-sim',
      max_tokens: 100,
      tools,
      messages: [
        { role: 'user', content: 'Paris' },
        { role: 'assistant', content: [{ type: 'tool_use', id: block.id, name: 'get_weather', input: block.input }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: block.id, content: 'Sunny, 21C' }] },
      ],
    });
    expect(after.stop_reason).toBe('end_turn');
    expect(after.content[0]).toEqual({ type: 'text', text: 'Based on the tool result: "Sunny, 21C".' });
  });

  it('surfaces simulated errors with the right class', async () => {
    const err = await anthropic.messages
      .create({ model: 'claude-sim;status=529', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    const auth = await new Anthropic({ apiKey: 'sk-ant-sim-invalid', baseURL: `${sim.url}/anthropic`, maxRetries: 0 }).messages
      .create({ model: 'claude-sim', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(auth).toBeInstanceOf(Anthropic.AuthenticationError);
  });
});
