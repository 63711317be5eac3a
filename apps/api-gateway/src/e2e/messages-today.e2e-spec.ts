import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic, { NotFoundError } from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { generateObject, jsonSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { call, stack } from './e2e-helpers.js';

/** What today's Anthropic clients send beyond the basic Messages API (Claude Code, @ai-sdk/anthropic, the SDK's countTokens). */
const origin = new URL(stack.baseUrl).origin;
const anthropic = new Anthropic({ apiKey: stack.apiKey, baseURL: origin, maxRetries: 0 });
const provider = createAnthropic({ apiKey: stack.apiKey, baseURL: stack.baseUrl });
const citySchema = {
  type: 'object' as const,
  properties: { city: { type: 'string' as const }, population: { type: 'number' as const } },
  required: ['city', 'population'],
  additionalProperties: false,
};
const city = jsonSchema<{ city: string; population: number }>(citySchema);
const models = [
  { format: 'anthropic', model: 'sim/claude-sonnet', countedBy: 'anthropic' },
  { format: 'openai', model: 'sim/gpt-4o-mini', countedBy: 'gpt-tokenizer:o200k_base' },
] as const;
const anthropicHeaders = { 'x-api-key': stack.apiKey, 'anthropic-version': '2023-06-01' };

describe.each(models)('/v1/messages as Anthropic serves it today, on an $format-format model', ({ format, model, countedBy }) => {
  it('@ai-sdk/anthropic generateObject returns the object, by output_config.format and by its JSON tool', async () => {
    for (const structuredOutputMode of ['outputFormat', 'jsonTool'] as const) {
      const { object } = await generateObject({
        model: provider(model),
        schema: city,
        prompt: 'Tell me about Paris',
        maxOutputTokens: 256,
        maxRetries: 0,
        providerOptions: { anthropic: { structuredOutputMode } },
      });
      expect(object, structuredOutputMode).toEqual({ city: expect.any(String), population: expect.any(Number) });
    }
  });

  it('output_config.format answers JSON in the schema, and effort is taken', async () => {
    const message = await anthropic.messages.create({
      model,
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Tell me about Paris' }],
      output_config: { effort: 'low', format: { type: 'json_schema', schema: citySchema } },
    });
    const text = (message.content[0] as Anthropic.TextBlock).text;
    expect(JSON.parse(text)).toEqual({ city: expect.any(String), population: expect.any(Number) });

    const badEffort = await call('/messages', {
      body: { model, max_tokens: 32, messages: [{ role: 'user', content: 'hi' }], output_config: { effort: 'huge' } },
    });
    expect(badEffort.status).toBe(400);
    expect(badEffort.body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/effort/) },
    });
  });

  it('takes a system message inside messages, as Claude Code sends it', async () => {
    const messages = [
      { role: 'user', content: 'Tell me about gateways' },
      { role: 'system', content: 'Answer in one line.' },
    ] as unknown as MessageParam[];
    const message = await anthropic.messages.create({ model, max_tokens: 64, messages });
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Simulated reply to: Tell me about gateways/) });
    const streamed = await anthropic.messages.stream({ model, max_tokens: 64, messages }).finalMessage();
    expect(streamed.stop_reason).toBe('end_turn');
  });

  it('messages.countTokens counts with the right counter and says which', async () => {
    const body = { model, messages: [{ role: 'user' as const, content: 'hello there' }] };
    const counted = await anthropic.messages.countTokens(body);
    expect(counted).toEqual({ input_tokens: expect.any(Number) });
    const raw = await call('/messages/count_tokens', { body });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('x-token-count-source')).toBe(countedBy);
    expect(raw.body).toEqual(counted);
    if (format === 'anthropic') {
      // Anthropic's own count: the same the message is then billed with.
      const message = await anthropic.messages.create({ ...body, max_tokens: 16 });
      expect(counted.input_tokens).toBe(message.usage.input_tokens);
    } else {
      // o200k_base: 3 to prime the reply + 3 for the message + "user" (1) + "hello there" (2).
      expect(counted.input_tokens).toBe(9);
    }
    const longer = await anthropic.messages.countTokens({ model, system: 'You are terse.', messages: body.messages });
    expect(longer.input_tokens).toBeGreaterThan(counted.input_tokens);

    const unauthorized = await call('/messages/count_tokens', { key: null, body });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });

    const unknown = await anthropic.messages.countTokens({ ...body, model: 'nope/model' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect((unknown as NotFoundError).type).toBe('not_found_error');
  });
});

describe('context_management and anthropic-beta', () => {
  const body = {
    max_tokens: 32,
    messages: [{ role: 'user', content: 'Tell me about gateways' }],
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  };

  it('go on to an Anthropic-format endpoint as sent: with its beta it is taken, without it Anthropic refuses', async () => {
    const withBeta = await fetch(`${origin}/v1/messages`, {
      method: 'POST',
      headers: { ...anthropicHeaders, 'anthropic-beta': 'context-management-2025-06-27', 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, model: 'sim/claude-sonnet' }),
    });
    expect(withBeta.status).toBe(200);
    expect(withBeta.headers.get('x-gateway-warning')).toBeNull();
    const without = await call('/messages', { body: { ...body, model: 'sim/claude-sonnet' } });
    expect(without.status).toBe(400);
    expect(without.body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/context_management/) },
    });
  });

  it('are left out on an OpenAI-format endpoint, named in x-gateway-warning, streamed and not', async () => {
    for (const stream of [false, true]) {
      const response = await fetch(`${origin}/v1/messages`, {
        method: 'POST',
        headers: { ...anthropicHeaders, 'anthropic-beta': 'context-management-2025-06-27', 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, model: 'sim/gpt-4o-mini', stream }),
      });
      expect(response.status).toBe(200);
      const warning = response.headers.get('x-gateway-warning') ?? '';
      expect(warning).toMatch(/context_management was left out/);
      expect(warning).toMatch(/anthropic-beta context-management-2025-06-27 was not sent/);
      const text = await response.text();
      expect(text).toContain('"gateway_warnings"');
    }
  });

  it('refuses a malformed anthropic-beta header in Anthropic error shape', async () => {
    const response = await call('/messages', {
      body: { ...body, model: 'sim/claude-sonnet' },
      headers: { 'anthropic-beta': 'not a beta' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/anthropic-beta/) },
    });
  });
});
