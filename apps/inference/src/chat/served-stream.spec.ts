import { StreamWindow, type FrameSink } from '@gw/messaging';
import { describe, expect, it, vi } from 'vitest';

const request: { sink?: FrameSink; window?: StreamWindow } = {};
vi.mock('@gw/messaging', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@gw/messaging')>()),
  useStreamFrames: () => request.sink,
  currentStreamWindow: () => request.window,
}));

const { observeStream, SSE_DATA_FRAME } = await import('./stream-observable.js');
const { StreamCancellations } = await import('./stream-cancellations.js');

describe('observeStream with a flow-control window (ADR 0084)', () => {
  it('releases a stream paused for credit when it is cancelled, so its run sees the abort and ends', async () => {
    const frames: string[] = [];
    request.sink = { write: (frame) => frames.push(frame), end: vi.fn() };
    request.window = new StreamWindow(10);
    const cancellations = new StreamCancellations({} as never);
    const ended = vi.fn();
    const subscription = observeStream(
      cancellations,
      'stream-1',
      async (signal, emit) => {
        emit('{"n":0}');
        request.window!.sent(10); // the gateway has not granted anything: the window is closed
        await request.window!.whenOpen();
        if (signal.aborted) throw new Error('aborted');
        emit('{"n":1}');
      },
      SSE_DATA_FRAME,
    ).subscribe({ error: ended, complete: ended });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(ended).not.toHaveBeenCalled();
    cancellations.cancel('stream-1');
    await vi.waitFor(() => expect(ended).toHaveBeenCalledOnce());
    expect(frames).toEqual(['data: {"n":0}\n\n']);
    subscription.unsubscribe();
  });
});
