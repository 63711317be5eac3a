import { describe, expect, it } from 'vitest';
import { STREAM_HEADER } from './rpc-stream.js';
import { MAX_COALESCED_CHARS, StreamFrameWriter } from './stream-frame-writer.js';

function writer() {
  const sent: Array<{ data: string; kind: string | undefined }> = [];
  const frames = new StreamFrameWriter((data, { headers }) => sent.push({ data, kind: headers?.get(STREAM_HEADER) }));
  return { frames, sent };
}

const tick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe('StreamFrameWriter', () => {
  it('sends the frames written in one turn as one message before any I/O, then the next turn’s', async () => {
    const { frames, sent } = writer();
    frames.write('a');
    frames.write('b');
    expect(sent).toEqual([]);
    await tick();
    expect(sent).toEqual([{ data: 'ab', kind: 'frames' }]);
    frames.write('c');
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Only the first message is marked; the next ones carry no header at all.
    expect(sent).toEqual([
      { data: 'ab', kind: 'frames' },
      { data: 'c', kind: undefined },
    ]);
  });

  it('ends with what it holds, or with an empty end message', async () => {
    const held = writer();
    held.frames.write('a');
    held.frames.end();
    await tick();
    expect(held.sent).toEqual([{ data: 'a', kind: 'end' }]);
    const empty = writer();
    empty.frames.end();
    empty.frames.write('late');
    await tick();
    expect(empty.sent).toEqual([{ data: '', kind: 'end' }]);
  });

  it('does not let one message grow past the bound', () => {
    const { frames, sent } = writer();
    const frame = 'x'.repeat(MAX_COALESCED_CHARS / 2);
    frames.write(frame);
    frames.write(frame);
    expect(sent).toEqual([{ data: frame + frame, kind: 'frames' }]);
  });

  it('flushes on demand, before an error packet', () => {
    const { frames, sent } = writer();
    frames.write('a');
    frames.flush();
    frames.flush();
    expect(sent).toEqual([{ data: 'a', kind: 'frames' }]);
  });
});
