/*
 * Flow control per stream. NATS core has no flow control, so a stream whose client stopped
 * reading would make the gateway hold every frame inference kept sending. With a window the
 * caller says how many bytes it will hold for one stream (`Gw-Stream-Window: <bytes>` on the
 * request); the producer stops pulling its source (the provider's body) once that many bytes it
 * sent are unacknowledged, and the caller grants credit as its own client takes the bytes: the
 * cumulative count of bytes it consumed, sent to the per-stream credit subject the producer named
 * in its first message (`Gw-Stream-Credit`). Cumulative counts make a grant idempotent and a lost
 * one healed by the next. A request without the header has no window.
 */

/** Request header: the bytes the caller holds for this stream at most (a positive integer). */
export const STREAM_WINDOW_HEADER = 'Gw-Stream-Window';
/** Header of the first message of frames: where the caller sends its credit for this stream. */
export const STREAM_CREDIT_HEADER = 'Gw-Stream-Credit';

/** The window a request announces, or undefined (none, or not a positive integer). */
export function parseWindow(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const bytes = Number(value);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/**
 * The producer's side: bytes sent against bytes the consumer acknowledged. The producer sends
 * what it already has (a frame is never refused) and asks `whenOpen()` before it pulls more from
 * its source, so the consumer holds at most one window plus what one pull produced.
 */
export class StreamWindow {
  private sentBytes = 0;
  private ackedBytes = 0;
  private released = false;
  private waiters: Array<() => void> | undefined;

  constructor(readonly size: number) {}

  /** Bytes sent and not acknowledged yet. */
  get unacknowledged(): number {
    return this.sentBytes - this.ackedBytes;
  }

  /** The producer may pull more: less than a window is unacknowledged (or the window was released). */
  get isOpen(): boolean {
    return this.released || this.sentBytes - this.ackedBytes < this.size;
  }

  sent(bytes: number): void {
    this.sentBytes += bytes;
  }

  /** The consumer has taken `consumed` bytes of the stream in all (cumulative; older or repeated grants change nothing). */
  grant(consumed: number): void {
    if (!(consumed > this.ackedBytes)) return;
    this.ackedBytes = Math.min(consumed, this.sentBytes);
    if (this.isOpen) this.wake();
  }

  /** Undefined when the producer may go on now, else a promise resolved when it may (credit, or release). */
  whenOpen(): Promise<void> | undefined {
    if (this.isOpen) return undefined;
    return new Promise((resolve) => (this.waiters ??= []).push(resolve));
  }

  /** The stream ended or was cancelled: nothing waits for credit any more (a paused pull goes on and sees the abort). */
  release(): void {
    this.released = true;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    if (!waiters) return;
    this.waiters = undefined;
    for (const resolve of waiters) resolve();
  }
}

/**
 * The consumer's side: bytes taken by the consumer, and when to tell the producer. A grant goes
 * out once half a window was taken since the last one, so a stream costs one credit message per
 * half window (32 KB by default), and a producer stopped at a full window always gets one.
 */
export class CreditGrants {
  private consumed = 0;
  private granted = 0;
  private readonly step: number;
  /** When the last grant went out (ms since the epoch). */
  private grantedAt = 0;
  /** Packets arrived so far, the count the last check saw, and since when it has not moved. */
  private arrivals = 0;
  private arrivalsSeen = 0;
  private quietSince = 0;

  constructor(
    readonly window: number,
    private readonly send: (consumed: number) => void,
  ) {
    this.step = Math.max(1, Math.floor(window / 2));
  }

  /** The consumer took `bytes` more. */
  took(bytes: number): void {
    this.consumed += bytes;
    if (this.consumed - this.granted >= this.step) {
      this.granted = this.consumed;
      this.grantedAt = Date.now();
      this.send(this.consumed);
    }
  }

  /** A packet of the stream arrived (counted, not timed: this runs for every frame). */
  arrived(): void {
    this.arrivals += 1;
  }

  /**
   * Called now and then (`RpcClient`'s sweep, once a second): sends the last grant again when
   * nothing arrived for `silentMs` since it went out. NATS core drops a message whose subscriber
   * is not there at that moment (the producer's connection reconnecting after a NATS restart), and
   * a producer stopped at a full window whose grant was lost would wait for the stream's idle
   * timeout. Grants are cumulative, so a repeat is harmless; a stream that never granted (a short
   * or slow one) sends nothing, and one whose producer is only slow gets one small message per
   * `silentMs`.
   */
  resendIfSilent(now: number, silentMs: number): void {
    if (this.granted === 0) return;
    if (this.arrivals !== this.arrivalsSeen) {
      this.arrivalsSeen = this.arrivals;
      this.quietSince = now;
      return;
    }
    if (now - Math.max(this.quietSince, this.grantedAt) < silentMs) return;
    this.grantedAt = now;
    this.send(this.granted);
  }
}

/** Before each pull from `source`, waits while the window is closed. */
export function gatedByWindow<T>(source: AsyncIterator<T>, window: StreamWindow): AsyncIterator<T> {
  return {
    next: () => {
      const wait = window.whenOpen();
      return wait ? wait.then(() => source.next()) : source.next();
    },
    return: source.return ? (value?: unknown) => source.return!(value) : undefined,
    throw: source.throw ? (error?: unknown) => source.throw!(error) : undefined,
  };
}
