import type { Span } from '@opentelemetry/api';
import { headers, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { StreamWindow } from './stream-window.js';

/*
 * Liveness of a request while a service works on it (ADR 0025). A replica that is killed
 * sends nothing more, and NATS core cannot tell the caller; so the replica speaks up:
 * - every `RPC_HEARTBEAT_MS` it sends an empty message with the header `Gw-Rpc: working` to
 *   the reply subject of every request it still works on (one timer for all of them; a
 *   request answered faster than a beat costs nothing but a Map entry);
 * - before the request's first side effect that must not be repeated (inference: the call
 *   to the provider) the handler calls `markCommitted()`, which sends `Gw-Rpc: committed`
 *   at once, and later beats say `committed` too.
 * A caller that hears nothing for `RPC_LIVENESS_TIMEOUT_MS` knows the replica is gone. If it
 * never heard `committed`, the request may be sent again to another replica (the caller opts
 * in per call); otherwise it answers a retryable 503.
 */

/** Header of the liveness messages; its value is one of `RpcProgress`. */
export const RPC_PROGRESS_HEADER = 'Gw-Rpc';
export type RpcProgress = 'working' | 'committed';

/** Default beat; a caller's liveness timeout must be several beats long (default 8 s). */
export const DEFAULT_HEARTBEAT_MS = 2_000;
export const DEFAULT_LIVENESS_TIMEOUT_MS = 8_000;

function progressHeaders(progress: RpcProgress): MsgHdrs {
  const hdrs = headers();
  hdrs.set(RPC_PROGRESS_HEADER, progress);
  return hdrs;
}

/** One request a replica is working on. */
export class InFlightRequest {
  committed = false;
  /** Set once Nest asked for this request's publisher, i.e. it is a request and not an event. */
  replying = false;
  /** The handler's span (tracing on only, ADR 0050): ended when the last packet went out. */
  span?: Span;
  /** The caller asked for stream frames (`Gw-Stream: frames`, ADR 0067). */
  framesAccepted = false;
  /** Where the handler writes its frames (set by the server when the caller accepts them). */
  frameSink?: FrameSink;
  /** The handler took the sink: the server sends its packets as frames. */
  frames = false;
  /** The caller's flow-control window on this stream of frames (ADR 0084), when it announced one. */
  window?: StreamWindow;
  /**
   * What answers the caller when a graceful stop's grace period ends before the request did
   * (ADR 0026): Nest's publisher, or a served subject's answer. A field rather than a WeakMap
   * entry, as every request sets it (ADR 0086).
   */
  abandon?: (packet: { err: unknown }) => unknown;
  /** Replies still on their way through the object store (ADR 0031): the request ends once they have left. */
  replyChain?: Promise<void>;

  constructor(
    readonly reply: string,
    private readonly owner: InFlightRequests,
  ) {}

  /** The point after which sending the request again elsewhere would repeat a side effect. */
  commit(): void {
    if (this.committed) return;
    this.committed = true;
    this.owner.beat(this);
  }
}

const current = new AsyncLocalStorage<InFlightRequest>();

/**
 * Marks the request the caller is handling as committed (see above). Outside a request
 * (a test, a JetStream consumer) it does nothing.
 */
export function markCommitted(): void {
  current.getStore()?.commit();
}

/** Where a streaming handler writes its frames (ADR 0067). */
export interface FrameSink {
  /** One frame: the exact bytes the caller's client receives. */
  write(frame: string): void;
  /**
   * The stream is complete: what is held goes out with the end marker in one message, without
   * waiting for Nest's own end a tick later. Call it right before completing the Observable.
   */
  end(): void;
}

/**
 * Called by a streaming handler that can write each packet as the exact bytes its caller's
 * client receives (an SSE frame), before it emits anything. When the caller accepts frames
 * (ADR 0067) it answers the sink to write them to: the server sends them raw, frames written in
 * the same turn in one message, and the handler's Observable only ends (or fails) the stream.
 * Undefined (a caller that predates frames, or no request): emit packets as before, Nest sends
 * them as JSON packets.
 */
export function useStreamFrames(): FrameSink | undefined {
  const request = current.getStore();
  if (!request?.frameSink) return undefined;
  request.frames = true;
  return request.frameSink;
}

/**
 * The flow-control window of the stream of frames the caller is handling (ADR 0084): a handler
 * that took the frame sink asks `whenOpen()` before it pulls more from its source (the
 * provider's body), so a caller whose client stopped reading pauses the source instead of
 * receiving frames it would have to hold. Undefined when the caller announced no window (an
 * older gateway), for packets that are not frames, and outside a request.
 */
export function currentStreamWindow(): StreamWindow | undefined {
  const request = current.getStore();
  return request?.frames ? request.window : undefined;
}

/**
 * The requests one replica is working on: their heartbeats, and what a graceful shutdown
 * waits for (and answers with an error when the grace period is over).
 */
export class InFlightRequests {
  private readonly requests = new Set<InFlightRequest>();
  private readonly working = progressHeaders('working');
  private readonly committed = progressHeaders('committed');
  private readonly ticker: NodeJS.Timeout;
  private idleWaiters: Array<() => void> = [];
  private connection: NatsConnection | undefined;

  constructor(heartbeatMs: number) {
    this.ticker = setInterval(() => this.beatAll(), heartbeatMs);
    this.ticker.unref();
  }

  get size(): number {
    return this.requests.size;
  }

  attach(connection: NatsConnection): void {
    this.connection = connection;
  }

  /** The request whose handler is running in the current async context. */
  current(): InFlightRequest | undefined {
    return current.getStore();
  }

  /** Runs `handle` with `request` as the current request (for `markCommitted`). */
  track<T>(reply: string, handle: (request: InFlightRequest) => Promise<T>): Promise<T> {
    const request = new InFlightRequest(reply, this);
    this.requests.add(request);
    return current.run(request, () => handle(request));
  }

  /** The request's last packet went out (or it never was a request): no more beats. */
  done(request: InFlightRequest): void {
    if (request.span) {
      request.span.end();
      request.span = undefined;
    }
    if (!this.requests.delete(request) || this.requests.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  beat(request: InFlightRequest): void {
    try {
      this.connection?.publish(request.reply, undefined, { headers: request.committed ? this.committed : this.working });
    } catch {
      // connection closing or closed: the caller's liveness timeout takes over
    }
  }

  /** Resolves when no request is in flight, or after `timeoutMs` (false then). */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.requests.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((waiter) => waiter !== onIdle);
        resolve(false);
      }, timeoutMs);
      const onIdle = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(onIdle);
    });
  }

  /** What is still in flight, dropped from the set (the grace period is over). */
  abandonAll(): InFlightRequest[] {
    const requests = [...this.requests].filter((request) => request.replying);
    this.requests.clear();
    return requests;
  }

  stop(): void {
    clearInterval(this.ticker);
  }

  private beatAll(): void {
    for (const request of this.requests) if (request.replying) this.beat(request);
  }
}
