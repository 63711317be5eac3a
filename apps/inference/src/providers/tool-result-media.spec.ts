import { describe, expect, it } from 'vitest';
import { toolMediaAsUserTurns } from './tool-result-media.js';

const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };

describe('toolMediaAsUserTurns', () => {
  it('keeps the text in the tool message and puts the media in one user message after the run of tool messages', () => {
    const messages = [
      { role: 'user', content: 'Look at both' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'a' }, { id: 'b' }] },
      { role: 'tool', tool_call_id: 'a', content: [{ type: 'text', text: 'first' }, image] },
      { role: 'tool', tool_call_id: 'b', content: [image] },
      { role: 'user', content: 'Which is red?' },
    ];
    expect(toolMediaAsUserTurns(messages)).toEqual([
      messages[0],
      messages[1],
      { role: 'tool', tool_call_id: 'a', content: [{ type: 'text', text: 'first' }] },
      { role: 'tool', tool_call_id: 'b', content: 'The result is attached in the next message (1 part).' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Attached to the result of tool call a:' },
          image,
          { type: 'text', text: 'Attached to the result of tool call b:' },
          image,
        ],
      },
      messages[4],
    ]);
  });

  it('leaves messages without media as they are (the same array)', () => {
    const messages = [{ role: 'tool', tool_call_id: 'a', content: [{ type: 'text', text: 'x' }] }];
    expect(toolMediaAsUserTurns(messages)).toBe(messages);
  });
});
