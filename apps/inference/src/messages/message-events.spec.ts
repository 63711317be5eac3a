import { describe, expect, it } from 'vitest';
import type { NormalizedChunkChoice } from '../providers/provider-adapter.js';
import { ChunksToMessageEvents } from './message-events.js';

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  type: 'chunk' as const,
  choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: finish } satisfies NormalizedChunkChoice],
});

describe('ChunksToMessageEvents', () => {
  it('turns reasoning, text and tool-call chunks into content blocks in order', () => {
    const blocks = new ChunksToMessageEvents();
    const events = [
      ...blocks.add(chunk({ role: 'assistant', content: '' })),
      ...blocks.add(chunk({ reasoning: 'think' })),
      ...blocks.add(chunk({ content: 'Hel' })),
      ...blocks.add(chunk({ content: 'lo' })),
      ...blocks.add(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] })),
      ...blocks.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] })),
      ...blocks.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] })),
      ...blocks.add(chunk({}, 'tool_calls')),
    ];
    const { events: closing, stopReason } = blocks.finish();
    expect([...events, ...closing]).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'think' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hel' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'lo' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_1', name: 'f', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '1}' } },
      { type: 'content_block_stop', index: 2 },
    ]);
    expect(stopReason).toBe('tool_use');
  });
});
