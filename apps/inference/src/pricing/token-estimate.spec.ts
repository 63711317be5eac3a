import { describe, expect, it } from 'vitest';
import { estimatePromptTokens, estimateTokens } from './token-estimate.js';

describe('token estimates', () => {
  it('counts about four characters a token, rounding up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });

  it('counts string content, text parts and tool-call arguments, plus an overhead per message', () => {
    const messages = [
      { role: 'system', content: 'x'.repeat(8) },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'y'.repeat(8) },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'abcd', arguments: '{"q":1}' } }] },
    ];
    // 8 + 8 + 4 + 7 = 27 characters -> 7 tokens, + 3 messages x 4.
    expect(estimatePromptTokens(messages)).toBe(19);
  });

  it('gives 0 for a body without messages', () => {
    expect(estimatePromptTokens(undefined)).toBe(0);
  });
});
