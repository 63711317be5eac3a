import type { StreamWindow } from './stream-window.js';

/** Where a streaming handler writes: frames, the exact bytes its caller's client receives. */
export interface StreamOut {
  /** One or more frames; those written in one turn of the event loop leave in one message. */
  write(frame: string): void;
  /** Aborted when the server gives the stream up (a graceful stop's grace period ended). */
  readonly signal: AbortSignal;
  /** The caller's flow-control window: pull more from the source only while it is open. */
  readonly window?: StreamWindow;
}

/**
 * What a streaming handler returns instead of a value: the server runs it once with the
 * stream's output, ends the stream when it resolves and fails it with its error when it rejects.
 */
export class ServedStream {
  constructor(readonly run: (out: StreamOut) => Promise<void>) {}
}
