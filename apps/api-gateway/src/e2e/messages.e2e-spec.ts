import Anthropic, { APIError, NotFoundError } from '@anthropic-ai/sdk';
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/** Anthropic's own client pointed at the gateway (it appends /v1/messages to its base URL). */
const anthropic = new Anthropic({ apiKey: stack.apiKey, baseURL: stack.baseUrl.replace(/\/v1$/, ''), maxRetries: 0 });
const messages: MessageParam[] = [{ role: 'user', content: 'Tell me about gateways' }];
const tools: Tool[] = [
  {
    name: 'get_weather',
    description: 'Get current temperature for a given location.',
    input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
];

type GatewayUsage = Anthropic.Usage & { cost: number; is_byok: boolean; cost_details: Record<string, number | null> };

/** One model per upstream format: Anthropic's relayed as it is, OpenAI's translated both ways. */
const models = [
  { format: 'anthropic', model: 'sim/claude-sonnet', provider: 'Simulator (Anthropic format)', prompt: 0.000003, completion: 0.000015 },
  { format: 'openai', model: 'sim/gpt-4o-mini', provider: 'Simulator', prompt: 0.00000015, completion: 0.0000006 },
] as const;

describe.each(models)('POST /v1/messages on an $format-format model', ({ model, provider, prompt, completion }) => {
  it("answers messages.create in Anthropic's message shape, priced as on chat completions", async () => {
    const message = await anthropic.messages.create({ model, max_tokens: 256, system: 'You are terse.', messages });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model,
      stop_reason: 'end_turn',
      stop_sequence: null,
      container: null,
      stop_details: null,
      input_transformations: null,
    });
    expect(message.id).toMatch(/^gen-/);
    expect((message as unknown as { provider: string }).provider).toBe(provider);
    expect(message.content).toHaveLength(1);
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Simulated reply to: Tell me about gateways/) });
    const usage = message.usage as GatewayUsage;
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(usage.is_byok).toBe(false);
    expect(usage.cost).toBeCloseTo(usage.input_tokens * prompt + usage.output_tokens * completion, 12);
  });

  it("streams with messages.stream: Anthropic's event types, the same text, usage with its cost at the end", async () => {
    const stream = anthropic.messages.stream({ model, max_tokens: 256, messages });
    const types: string[] = [];
    let lastDelta: Anthropic.MessageDeltaEvent | undefined;
    stream.on('streamEvent', (event) => {
      types.push(event.type);
      if (event.type === 'message_delta') lastDelta = event;
    });
    const final = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types.at(-2)).toBe('message_delta');
    expect(types).toContain('content_block_start');
    expect(types).toContain('content_block_delta');
    expect(types).toContain('content_block_stop');
    expect(final.id).toMatch(/^gen-/);
    expect(final.model).toBe(model);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Simulated reply to: Tell me about gateways/) });
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    // The SDK keeps Anthropic's counters only; the cost rides on the last message_delta's usage.
    const usage = lastDelta!.usage as unknown as GatewayUsage;
    expect(usage.output_tokens).toBe(final.usage.output_tokens);
    expect(usage.input_tokens).toBe(final.usage.input_tokens);
    expect(usage.cost).toBeCloseTo(usage.input_tokens * prompt + usage.output_tokens * completion, 12);
  });

  it('calls a tool and reads its result back, streamed and not', async () => {
    const first = await anthropic.messages.create({
      model,
      max_tokens: 256,
      tools,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { location: expect.any(String) } });

    const streamed = await anthropic.messages
      .stream({ model, max_tokens: 256, tools, messages: [{ role: 'user', content: 'Weather in Paris?' }] })
      .finalMessage();
    expect(streamed.stop_reason).toBe('tool_use');
    expect(streamed.content.find((block) => block.type === 'tool_use')).toMatchObject({
      name: 'get_weather',
      input: (toolUse as Anthropic.ToolUseBlock).input,
    });

    const second = await anthropic.messages.create({
      model,
      max_tokens: 256,
      tools,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: (toolUse as Anthropic.ToolUseBlock).id, content: '18 degrees' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('18 degrees') });
  });

  it('stops at a stop sequence and at max_tokens', async () => {
    const short = await anthropic.messages.create({ model, max_tokens: 3, messages });
    expect(short.stop_reason).toBe('max_tokens');
    expect(short.usage.output_tokens).toBeLessThanOrEqual(3);
    const stopped = await anthropic.messages.create({ model, max_tokens: 256, stop_sequences: ['gateways'], messages });
    expect(['stop_sequence', 'end_turn']).toContain(stopped.stop_reason);
    expect((stopped.content[0] as Anthropic.TextBlock).text).not.toContain('gateways');
  });

  it('takes an image block', async () => {
    const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const message = await anthropic.messages.create({
      model,
      max_tokens: 64,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel } },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    expect(message.content[0]).toMatchObject({ type: 'text' });
    expect(message.usage.input_tokens).toBeGreaterThan(85);
  });
});

describe("POST /v1/messages: what Anthropic's clients send and read", () => {
  it('takes the key as x-api-key with anthropic-version, as Claude Code sends it', async () => {
    const response = await fetch(`${stack.baseUrl}/messages`, {
      method: 'POST',
      headers: { 'x-api-key': stack.apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim/claude-sonnet', max_tokens: 32, messages }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ type: 'message', role: 'assistant' });
  });

  it("answers errors with the gateway envelope, plus Anthropic's type fields the SDK reads", async () => {
    const error = await anthropic.messages.create({ model: 'nope/model', max_tokens: 32, messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as APIError).type).toBe('not_found_error');
    const raw = await call('/messages', { body: { model: 'nope/model', max_tokens: 32, messages } });
    expect(envelopeOf(raw).metadata?.error_type).toBe('not_found');
    expect(raw.body).toMatchObject({ type: 'error', error: { code: 404, type: 'not_found_error' } });

    const unauthorized = await call('/messages', { key: null, body: { model: 'sim/claude-sonnet', max_tokens: 32, messages } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body).toMatchObject({ type: 'error', error: { code: 401, type: 'authentication_error' } });

    const invalid = await call('/messages', { body: { model: 'sim/claude-sonnet', messages } });
    expect(invalid.status).toBe(400);
    expect(envelopeOf(invalid).message).toMatch(/max_tokens/);
  });

  it('relays thinking blocks from an Anthropic-format model, streamed and not', async () => {
    const native = await anthropic.messages.create({
      model: 'sim/claude-sonnet',
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages,
    });
    expect(native.content[0]).toMatchObject({ type: 'thinking', thinking: expect.any(String), signature: expect.any(String) });
    const streamed = await anthropic.messages
      .stream({ model: 'sim/claude-sonnet', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages })
      .finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: 'thinking', thinking: expect.any(String) });
  });

  it('refuses an Anthropic server tool on an OpenAI-format model with a 400 naming it', async () => {
    const raw = await call('/messages', {
      body: { model: 'sim/gpt-4o-mini', max_tokens: 32, messages, tools: [{ type: 'web_search_20250305', name: 'web_search' }] },
    });
    expect(raw.status).toBe(400);
    expect(envelopeOf(raw).message).toMatch(/web_search_20250305/);
  });
});
