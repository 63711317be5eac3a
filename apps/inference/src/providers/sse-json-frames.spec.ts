import { describe, expect, it } from 'vitest';
import { sseJsonFrames } from './sse-json-frames.js';

async function* pieces(...texts: string[]): AsyncGenerator<string> {
  for (const text of texts) yield text;
}

async function collect<T extends object>(
  iterator: AsyncGenerator<{ event: string | undefined; data: T }>,
): Promise<Array<{ event: string | undefined; data: T }>> {
  const frames = [];
  for await (const frame of iterator) frames.push(frame);
  return frames;
}

describe('sseJsonFrames', () => {
  it('parses frames split across pieces up to the sentinel, and drains what follows without parsing it', async () => {
    const body = pieces('data: {"a":1}\n\nevent: x\nda', 'ta: {"a":2}\n\ndata: [DONE]\n\n', 'data: not json after the end\n\n');
    expect(await collect(sseJsonFrames('p', body, { sentinel: '[DONE]' }))).toEqual([
      { event: undefined, data: { a: 1 } },
      { event: 'x', data: { a: 2 } },
    ]);
  });

  it('yields the terminal frame itself and stops there', async () => {
    const body = pieces('data: {"type":"delta"}\n\ndata: {"type":"stop"}\n\ndata: {"type":"late"}\n\n');
    const frames = await collect(sseJsonFrames<{ type: string }>('p', body, { isTerminal: (frame) => frame.data.type === 'stop' }));
    expect(frames.map((frame) => frame.data.type)).toEqual(['delta', 'stop']);
  });

  it('fails, not retryable, on data that is not a JSON object and on a body that ends before its end', async () => {
    await expect(collect(sseJsonFrames('p', pieces('data: 42\n\n'), { sentinel: '[DONE]' }))).rejects.toMatchObject({ retryable: false });
    await expect(collect(sseJsonFrames('p', pieces('data: {"a":1}\n\n'), { sentinel: '[DONE]' }))).rejects.toMatchObject({
      retryable: false,
    });
  });
});
