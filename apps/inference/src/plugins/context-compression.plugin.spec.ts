import { describe, expect, it } from 'vitest';
import { compressMiddleOut } from './context-compression.plugin.js';

const long = (label: string) => `${label} ${'word '.repeat(200)}`;

describe('context-compression (middle-out)', () => {
  it('leaves a conversation that fits alone', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    expect(compressMiddleOut(messages, 1000, 0)).toEqual({ messages });
  });

  it('drops middle messages first, keeping the system prompt, the first message and the latest turn', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: long('first') },
      { role: 'assistant', content: long('a1') },
      { role: 'user', content: long('u2') },
      { role: 'assistant', content: long('a2') },
      { role: 'user', content: 'latest question' },
    ];
    const { messages: kept, compression } = compressMiddleOut(messages, 600, 50);
    expect(kept[0]).toEqual(messages[0]);
    expect(kept[1]).toEqual(messages[1]);
    expect(kept.at(-1)).toEqual(messages[5]);
    expect(kept.length).toBeLessThan(messages.length);
    expect(compression!.droppedMessages).toBe(messages.length - kept.length);
    expect(compression!.estimatedTokensAfter + 50).toBeLessThanOrEqual(600);
  });

  it('drops an assistant tool call together with its tool results', () => {
    const messages = [
      { role: 'user', content: long('first') },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: long('result') },
      { role: 'assistant', content: long('a') },
      { role: 'user', content: 'latest' },
    ];
    const { messages: kept } = compressMiddleOut(messages, 300, 0);
    expect(kept.some((message) => message.role === 'tool')).toBe(kept.some((message) => Array.isArray(message.tool_calls)));
  });
});
