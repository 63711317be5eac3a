import type { Span } from '@opentelemetry/api';
import { headers, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RpcErrorPayload } from '@gw/errors';
import type { StreamWindow } from './stream-window.js';

/*
 * Liveness of a request while a service works on it. A replica that is killed
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
  /** The handler's span (tracing on only): ended when the last reply went out. */
  span?: Span;
  /** The caller's flow-control window on this stream, when it announced one. */
  window?: StreamWindow;
  /** The grace period of a graceful stop ended first: nothing more is sent after `abandon`'s 503. */
  abandoned = false;
  /** Answers the caller when a graceful stop's grace period ends before the request did. */
  abandon?: (err: RpcErrorPayload) => void;
  /** Replies still on their way through the object store: the request ends once they have left. */
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

/**
 * The flow-control window of the stream the caller is handling: pull more from the source (the
 * provider's body) only once `whenOpen()` allows, so a caller whose client stopped reading pauses
 * the source. Undefined when the caller announced no window, and outside a request.
 */
export function currentStreamWindow(): StreamWindow | undefined {
  return current.getStore()?.window;
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
    const requests = [...this.requests];
    this.requests.clear();
    return requests;
  }

  stop(): void {
    clearInterval(this.ticker);
  }

  private beatAll(): void {
    for (const request of this.requests) this.beat(request);
  }
}
