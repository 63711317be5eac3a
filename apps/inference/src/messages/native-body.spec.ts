import { describe, expect, it } from 'vitest';
import { applyPreset } from '../resolution/preset-reference.js';
import { chatBodyFromMessages } from './chat-body-from-messages.js';
import { nativeAnthropicBody } from './native-body.js';

const request = {
  model: '@preset/terse',
  max_tokens: 300,
  system: 'Own system.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
  metadata: { user_id: 'raw-user' },
  temperature: 0.3,
  provider: { sort: 'price' },
  session_id: 's-1',
};

describe('nativeAnthropicBody', () => {
  it('relays the Messages body as sent, re-targeted, with the end user hashed and gateway fields left out', () => {
    const chat = chatBodyFromMessages(request);
    const body = nativeAnthropicBody({ request, chat, prepared: chat, upstreamModel: 'claude-x', endUserHash: 'hash' });
    expect(body).toEqual({
      model: 'claude-x',
      max_tokens: 300,
      system: 'Own system.',
      messages: request.messages,
      metadata: { user_id: 'hash' },
      temperature: 0.3,
    });
  });

  it('adds what a preset sets and the request does not, in Anthropic terms, its system prompt first', () => {
    const chat = chatBodyFromMessages(request);
    const prepared = applyPreset(
      chat,
      { slug: 'terse' },
      {
        slug: 'terse',
        presetId: 'p',
        versionId: 'v',
        version: 1,
        config: { model: 'sim/claude-sonnet', temperature: 1.5, top_k: 5, stop: 'END', reasoning: { effort: 'low' } },
        systemPrompt: 'Preset system.',
      },
    );
    const body = nativeAnthropicBody({ request, chat, prepared, upstreamModel: 'claude-x' });
    expect(body.temperature).toBe(0.3);
    expect(body.top_k).toBe(5);
    expect(body.stop_sequences).toEqual(['END']);
    expect(body.system).toEqual([
      { type: 'text', text: 'Preset system.' },
      { type: 'text', text: 'Own system.' },
    ]);
    expect(body.thinking).toBeUndefined(); // 300 max tokens leave no room for Anthropic's 1024-token minimum budget
    expect(body).not.toHaveProperty('metadata');
  });
});
