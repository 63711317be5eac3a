import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { testEndpoint, testModel } from '../testing/test-endpoint.js';
import type { RouteAttempt } from '../routing/route-types.js';
import { chatBodyFromMessages } from './chat-body-from-messages.js';
import { CHAT_TOKENIZER, countChatTokens } from './chat-token-count.js';
import { translationWarnings } from './messages-attempt.js';
import { MID_CONVERSATION_SYSTEM_BETA, nativeAnthropicBody, nativeBetas } from './native-body.js';

/** What today's Anthropic clients send: system messages in the conversation, output_config, betas. */
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const base = { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };

function attemptOn(format: 'openai' | 'anthropic'): RouteAttempt {
  const endpoint = testEndpoint('u', [], format);
  return { modelId: 'sim/m', model: testModel(endpoint), endpoint, endpointKey: 'test/u', credential: { kind: 'gateway' } };
}

describe('chatBodyFromMessages: what an OpenAI-format model gets', () => {
  it('keeps a system message inside the conversation in place', () => {
    const chat = chatBodyFromMessages({
      ...base,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'assistant', content: 'ok' },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'assistant', content: 'ok' },
    ]);
  });

  it("keeps tool search's tool_reference results as a note (every tool is sent in full)", () => {
    const chat = chatBodyFromMessages({
      ...base,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ToolSearch', input: { query: 'select:WebFetch' } }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }],
        },
      ],
    });
    expect((chat.messages as unknown[]).at(-1)).toEqual({ role: 'tool', tool_call_id: 't1', content: 'Tool loaded: WebFetch' });
  });

  it('turns output_config.format and output_format into response_format, and effort into reasoning.effort', () => {
    const expected = { type: 'json_schema', json_schema: { name: 'output', schema, strict: true } };
    const fromConfig = chatBodyFromMessages({ ...base, output_config: { format: { type: 'json_schema', schema }, effort: 'xhigh' } });
    expect(fromConfig.response_format).toEqual(expected);
    expect(fromConfig.reasoning).toEqual({ effort: 'xhigh' });
    expect(fromConfig).not.toHaveProperty('output_config');
    expect(chatBodyFromMessages({ ...base, output_format: { type: 'json_schema', schema } }).response_format).toEqual(expected);
    // A thinking budget already says how much to think.
    const budgeted = chatBodyFromMessages({
      ...base,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      output_config: { effort: 'low' },
    });
    expect(budgeted.reasoning).toEqual({ max_tokens: 2048 });
    expect(chatBodyFromMessages({ ...base, thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }).reasoning).toEqual({
      enabled: true,
      effort: 'max',
    });
  });

  it('refuses a bad effort or format with 400 naming it', () => {
    expect(() => chatBodyFromMessages({ ...base, output_config: { effort: 'huge' } })).toThrow(/output_config.effort/);
    expect(() => chatBodyFromMessages({ ...base, output_config: { format: { type: 'json_object' } } })).toThrow(
      /output_config.format.type/,
    );
    expect(() => chatBodyFromMessages({ ...base, output_format: { type: 'json_schema' } })).toThrow(/output_format.schema/);
  });

  it('leaves context_management out of the chat form; translationWarnings names it and the betas, and refuses container', () => {
    const request = { ...base, context_management: { edits: [] } };
    const chat = chatBodyFromMessages(request);
    expect(chat).not.toHaveProperty('context_management');
    const warnings = translationWarnings({ request, chat, betas: ['context-management-2025-06-27'] }, attemptOn('openai'));
    expect(warnings).toEqual([
      'context_management was left out: not supported by sim/m on Test (an OpenAI-format provider)',
      'anthropic-beta context-management-2025-06-27 was not sent: not supported by sim/m on Test (an OpenAI-format provider)',
    ]);
    expect(translationWarnings({ request: base, chat: chatBodyFromMessages(base) }, attemptOn('openai'))).toEqual([]);
    const withContainer = { ...base, container: 'c-1' };
    expect(() => translationWarnings({ request: withContainer, chat: chatBodyFromMessages(withContainer) }, attemptOn('openai'))).toThrow(
      GatewayError,
    );
  });
});

describe('nativeAnthropicBody and nativeBetas: what an Anthropic-format model gets', () => {
  it('sends system messages, context_management and output_config as sent, output_format as output_config.format', () => {
    const request = {
      ...base,
      messages: [...base.messages, { role: 'system', content: 'Be brief.' }],
      context_management: { edits: [] },
      output_config: { effort: 'high' },
      output_format: { type: 'json_schema', schema },
    };
    const chat = chatBodyFromMessages(request);
    const body = nativeAnthropicBody({ request, chat, prepared: chat, upstreamModel: 'claude-x' });
    expect(body).toEqual({
      model: 'claude-x',
      max_tokens: 100,
      messages: request.messages,
      context_management: { edits: [] },
      output_config: { effort: 'high', format: { type: 'json_schema', schema } },
    });
  });

  it("adds the mid-conversation system beta to the caller's betas only when a system message is inside messages", () => {
    expect(nativeBetas(base, ['a-1'])).toEqual(['a-1']);
    expect(nativeBetas({ ...base, messages: [...base.messages, { role: 'system', content: 'x' }] }, ['a-1'])).toEqual([
      'a-1',
      MID_CONVERSATION_SYSTEM_BETA,
    ]);
    expect(nativeBetas({ ...base, messages: [{ role: 'system', content: 'x' }] }, [MID_CONVERSATION_SYSTEM_BETA])).toEqual([
      MID_CONVERSATION_SYSTEM_BETA,
    ]);
  });
});

describe('countChatTokens', () => {
  it('counts with o200k_base and the chat framing', async () => {
    expect(CHAT_TOKENIZER).toBe('gpt-tokenizer:o200k_base');
    // 3 to prime the reply + 3 for the message + "user" (1) + "hello there" (2).
    expect(await countChatTokens({ messages: [{ role: 'user', content: 'hello there' }] })).toBe(9);
    const withTools = await countChatTokens({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
      tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
    });
    expect(withTools).toBeGreaterThan(9);
  });
});
