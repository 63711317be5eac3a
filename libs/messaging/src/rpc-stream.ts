import { GatewayError } from '@gw/errors';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { CreditGrants } from './stream-window.js';

/**
 * Stream frames: a stream's replies are messages whose body is one or more frames, the exact
 * bytes for the caller's client. The first says so (`Gw-Stream: frames`); the ones after it
 * carry no header at all (a header costs its encoding and decoding on every message), the last
 * says `Gw-Stream: end` (its body may be empty), and an error is the `{err}` packet marked
 * `Gw-Stream: error`.
 */
export const STREAM_HEADER = 'Gw-Stream';
export type StreamHeaderValue = 'frames' | 'end' | 'error';

/** Shared, never mutated: nats.js encodes headers on each publish. */
export const STREAM_FRAMES_HEADERS: MsgHdrs = streamHeaders('frames');
export const STREAM_END_HEADERS: MsgHdrs = streamHeaders('end');
export const STREAM_ERROR_HEADERS: MsgHdrs = streamHeaders('error');

function streamHeaders(value: StreamHeaderValue): MsgHdrs {
  const headers = natsHeaders();
  headers.set(STREAM_HEADER, value);
  return headers;
}

export interface RpcStreamOptions {
  /** Longest wait from the request to the first packet (the service may be trying providers). */
  firstPacketTimeoutMs: number;
  /** Longest wait between two packets once the stream has begun. */
  idleTimeoutMs: number;
  /** Packets held for a consumer slower than the service before the stream is failed (default 10,000). */
  maxBufferedPackets?: number;
  /** Bytes held for a slower consumer before the stream is failed (packets measured by `sizeOf`); no bound by default. */
  maxBufferedBytes?: number;
  /** A bound shared by every stream of the process: bytes are taken from it while held, given back when read or dropped. */
  budget?: BufferBudget;
  /** Bytes of one packet (default: UTF-8 length of a string, else 0). */
  sizeOf?: (packet: unknown) => number;
  /** Told at once when the stream fails for a consumer that fell behind (to cancel the producer without waiting for the reader). */
  onSlowConsumer?: () => void;
  /**
   * Flow control: the bytes of this stream the caller holds at most. It is announced with the
   * request; the service names a credit subject in its first message and stops sending once a
   * window is unacknowledged, and the stream grants credit as the consumer reads.
   */
  window?: number;
  /**
   * With a window: the last grant is sent again when no packet arrived this long after it (a
   * grant lost while the producer's connection reconnected). Default 2,000 ms; checked by
   * `RpcClient`'s liveness sweep (once a second).
   */
  creditResendMs?: number;
}

/** Default of `RpcStreamOptions.creditResendMs`. */
export const DEFAULT_CREDIT_RESEND_MS = 2_000;

/** Bytes all buffered streams of a process may hold together. */
export interface BufferBudget {
  /** Takes `bytes` if they fit, else takes nothing and answers false. */
  tryTake(bytes: number): boolean;
  give(bytes: number): void;
}

const defaultSizeOf = (packet: unknown): number =>
  typeof packet === 'string' ? Buffer.byteLength(packet) : packet instanceof Uint8Array ? packet.length : 0;

const DEFAULT_MAX_BUFFERED_PACKETS = 10_000;

interface Waiter<T> {
  resolve: (result: IteratorResult<T>) => void;
  reject: (error: GatewayError) => void;
}

/**
 * The packets of one streamed reply, in arrival order, as an async iterator. `next()` rejects
 * with the GatewayError that ended the stream (a service error packet, a timeout, the bus
 * going away) once the packets before it have been read, so a consumer can tell a failure
 * before the first packet from one mid-stream. Packets are buffered if the consumer is slower
 * than the service (NATS core has no flow control; a chat stream is small), up to a bound: a
 * consumer that falls further behind (an HTTP client that stopped reading) fails the stream
 * with `reason: slow_consumer`, so one stuck client cannot grow the gateway's memory without end.
 * The bound is in packets and, when set, in bytes, per stream and across the process (`budget`).
 */
export class RpcStream<T> implements AsyncIterableIterator<T> {
  private readonly buffered: T[] = [];
  /** Bytes of each buffered packet, in the same order (only when a byte bound or budget is set). */
  private readonly bufferedSizes: number[] = [];
  private bufferedBytes = 0;
  private finished = false;
  private failure: GatewayError | undefined;
  private waiter: Waiter<T> | undefined;
  private timer: NodeJS.Timeout;
  private received = false;
  /** Credit for the producer as the consumer reads, once the service named where to send it. */
  private credit: CreditGrants | undefined;

  constructor(
    /** The subject the request went to. */
    readonly subject: string,
    private readonly options: RpcStreamOptions,
    /** Told once when the stream ends, with the error that ended it, if any. */
    private readonly release: (error?: GatewayError) => void,
  ) {
    this.timer = setTimeout(() => this.onTimeout(), options.firstPacketTimeoutMs);
  }

  /**
   * The service supports flow control: from now on, credit for the bytes the consumer
   * reads goes to `send` (the cumulative count), half a window at a time.
   */
  grantCredit(send: (consumed: number) => void): void {
    if (this.options.window && !this.credit) this.credit = new CreditGrants(this.options.window, send);
  }

  /** Packets received so far (the consumer may not have read them all). */
  get started(): boolean {
    return this.received;
  }

  /**
   * Sends the last grant of credit again if it may have been lost (`creditResendMs`); not while
   * packets wait for the consumer (then the consumer is what the stream waits for, not credit).
   */
  resendCreditIfSilent(now: number): void {
    if (this.finished || this.buffered.length > 0) return;
    this.credit?.resendIfSilent(now, this.options.creditResendMs ?? DEFAULT_CREDIT_RESEND_MS);
  }

  push(value: T): void {
    if (this.finished) return;
    this.credit?.arrived();
    if (this.received) {
      this.timer.refresh(); // restarts the idle wait without allocating a timer per packet
    } else {
      this.received = true;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.onTimeout(), this.options.idleTimeoutMs);
    }
    if (this.waiter) {
      const { resolve } = this.waiter;
      this.waiter = undefined;
      if (this.credit && value instanceof Uint8Array) this.credit.took(value.length);
      resolve({ value, done: false });
    } else if (this.buffered.length >= (this.options.maxBufferedPackets ?? DEFAULT_MAX_BUFFERED_PACKETS) || !this.hold(value)) {
      this.dropBuffered();
      this.fail(
        new GatewayError(503, 'The client read the stream too slowly; it was ended', {
          errorType: 'server',
          metadata: { reason: 'slow_consumer', retryable: true },
        }),
      );
      this.options.onSlowConsumer?.();
    } else {
      this.buffered.push(this.keep(value));
    }
  }

  /** Bytes this stream holds for its consumer now. */
  get heldBytes(): number {
    return this.bufferedBytes;
  }

  /** Accounts for one more buffered packet against the stream's bound and the shared budget. */
  private hold(value: T): boolean {
    const { maxBufferedBytes, budget } = this.options;
    if (maxBufferedBytes === undefined && budget === undefined) return true;
    const size = (this.options.sizeOf ?? defaultSizeOf)(value);
    if (maxBufferedBytes !== undefined && this.bufferedBytes + size > maxBufferedBytes) return false;
    if (budget && !budget.tryTake(size)) return false;
    this.bufferedBytes += size;
    this.bufferedSizes.push(size);
    return true;
  }

  /**
   * A frame is a view into the socket read it came in (nats.js does not copy), which may be far
   * larger and shared with other streams: one that waits in the buffer is copied, so what the
   * byte bounds count is what is held. A frame handed to a waiting reader is not.
   */
  private keep(value: T): T {
    return value instanceof Uint8Array && value.byteLength < value.buffer.byteLength ? (Buffer.copyBytesFrom(value) as T) : value;
  }

  private shiftBuffered(): T {
    const value = this.buffered.shift()!;
    // Once the service ended the stream, credit would tell it nothing.
    if (this.credit && !this.finished && value instanceof Uint8Array) this.credit.took(value.length);
    const size = this.bufferedSizes.shift();
    if (size !== undefined) {
      this.bufferedBytes -= size;
      this.options.budget?.give(size);
    }
    return value;
  }

  private dropBuffered(): void {
    this.buffered.length = 0;
    this.bufferedSizes.length = 0;
    if (this.bufferedBytes > 0) this.options.budget?.give(this.bufferedBytes);
    this.bufferedBytes = 0;
  }

  end(): void {
    this.finish(undefined);
  }

  fail(error: GatewayError): void {
    this.finish(error);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffered.length > 0) return Promise.resolve({ value: this.shiftBuffered(), done: false });
    if (this.failure) return Promise.reject(this.failure);
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** The consumer stopped reading (`break`, or it failed): later packets are dropped. */
  return(): Promise<IteratorResult<T>> {
    this.dropBuffered();
    this.finish(undefined);
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private onTimeout(): void {
    const waited = this.received ? this.options.idleTimeoutMs : this.options.firstPacketTimeoutMs;
    const what = this.received ? 'Internal stream stalled' : 'Internal stream did not start';
    this.fail(
      new GatewayError(504, `${what} within ${waited} ms`, {
        errorType: 'timeout',
        metadata: { reason: 'timeout', retryable: !this.received },
      }),
    );
  }

  private finish(error: GatewayError | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.failure = error;
    clearTimeout(this.timer);
    this.release(error);
    if (!this.waiter) return;
    const { resolve, reject } = this.waiter;
    this.waiter = undefined;
    if (error) reject(error);
    else resolve({ value: undefined, done: true });
  }
}
