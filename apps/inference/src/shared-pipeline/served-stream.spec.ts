import { StreamWindow } from '@gw/messaging';
import { describe, expect, it, vi } from 'vitest';
import { CallCancellations } from './call-cancellations.js';
import { SSE_DATA_FRAME, withCancellation } from './served-stream.js';

describe('withCancellation with a flow-control window', () => {
  it('releases a stream paused for credit when it is cancelled, so its run sees the abort and ends', async () => {
    const frames: string[] = [];
    const window = new StreamWindow(10);
    const cancellations = new CallCancellations({} as never);
    const ended = vi.fn();
    const stream = withCancellation(
      cancellations,
      'stream-1',
      async (signal, emit) => {
        emit('{"n":0}');
        window.sent(10); // the gateway has not granted anything: the window is closed
        await window.whenOpen();
        if (signal.aborted) throw new Error('aborted');
        emit('{"n":1}');
      },
      SSE_DATA_FRAME,
    );
    void stream.run({ write: (frame) => frames.push(frame), signal: new AbortController().signal, window }).then(ended, ended);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(ended).not.toHaveBeenCalled();
    cancellations.cancel('stream-1');
    await vi.waitFor(() => expect(ended).toHaveBeenCalledOnce());
    expect(frames).toEqual(['data: {"n":0}\n\n']);
  });
});
