import { describe, expect, it } from 'vitest';
import { fitToContext } from './context-fit.js';

const words = (count: number) => 'word '.repeat(count);

describe('truncation auto', () => {
  it('leaves a conversation that fits unchanged', () => {
    const messages = [{ role: 'user', content: 'Hi' }];
    expect(fitToContext(messages, 1000, 100)).toEqual(messages);
  });

  it('drops the oldest turns first, keeps system messages and the last message, and never leaves an orphan tool result', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: words(400) },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: words(400) },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'And now?' },
    ];
    const kept = fitToContext(messages, 200, 50);
    expect(kept).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'And now?' },
    ]);
  });
});
