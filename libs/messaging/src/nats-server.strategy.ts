import { Logger } from '@nestjs/common';
import { ServerNats, type NatsOptions } from '@nestjs/microservices';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { GatewayError, toRpcError } from '@gw/errors';
import { InFlightRequests } from './rpc-liveness.js';

type NatsServerOptions = NonNullable<NatsOptions['options']> & {
  /** How often a request still being handled tells its caller the replica is alive (ADR 0025). */
  heartbeatMs: number;
};

type Publisher = (packet: { err?: unknown; isDisposed?: boolean; response?: unknown }) => unknown;

/**
 * NestJS's NATS server with three additions:
 * - heartbeats on the reply subject of every request still being handled, and the
 *   `committed` marker (`rpc-liveness.ts`), so a caller notices a dead replica in seconds;
 * - a graceful `close()`: stop taking requests (drain the queue-group subscriptions, so NATS
 *   sends new ones to the other replicas and the ones already delivered are still handled),
 *   wait until the requests and streams in flight are answered (bounded), answer what is left
 *   with a retryable 503, flush, close;
 * - one cost less on every message: to support object patterns, Nest runs `JSON.parse` on
 *   each incoming subject and catches the SyntaxError that a plain subject like
 *   `inference.chat.create` always throws (2 % of the inference service's CPU in a profile).
 *   Our subjects are plain strings (`@gw/contracts`), so only one that looks like JSON takes
 *   Nest's path.
 */
export class PlainSubjectNatsServer extends ServerNats {
  readonly inFlight: InFlightRequests;
  private readonly log = new Logger('NatsServer');
  private readonly publishers = new WeakMap<object, Publisher>();
  private connected = false;

  constructor(private readonly serverOptions: NatsServerOptions) {
    super(serverOptions);
    this.inFlight = new InFlightRequests(serverOptions.heartbeatMs);
  }

  /** Connected to NATS now (false while reconnecting and after close). */
  isConnected(): boolean {
    return this.connected;
  }

  override async listen(callback: (error?: unknown) => void): Promise<void> {
    this.status.subscribe((status) => {
      this.connected = status === 'connected';
    });
    await super.listen(callback);
  }

  /** Resolves once nats-server has registered every subscription (a PING/PONG round trip). */
  async flush(): Promise<void> {
    await this.internals().natsClient?.flush();
  }

  protected override getRouteFromPattern(pattern: string): string {
    return pattern.startsWith('{') ? super.getRouteFromPattern(pattern) : this.normalizePattern(pattern);
  }

  override async handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    if (!natsMsg.reply) return super.handleMessage(channel, natsMsg);
    this.inFlight.attach(this.internals().natsClient!);
    return this.inFlight.track(natsMsg.reply, async (request) => {
      try {
        return await super.handleMessage(channel, natsMsg);
      } finally {
        // An event sent with a reply subject, or a failure before Nest took the request over.
        if (!request.replying) this.inFlight.done(request);
      }
    });
  }

  override getPublisher(natsMsg: Msg, id: string, ctx: unknown): Publisher {
    const publish = super.getPublisher(natsMsg as never, id, ctx as never) as Publisher;
    if (!natsMsg.reply) return publish;
    // Called inside handleMessage's `track`, so the current request is this message's.
    const request = this.inFlight.current();
    if (!request) return publish;
    request.replying = true;
    const wrapped: Publisher = (packet) => {
      // Nest marks the end with isDisposed (merged into the last queued packet) or sends err.
      const last = packet.isDisposed === true || (packet.err !== undefined && packet.err !== null);
      const result = publish(packet);
      if (last) this.inFlight.done(request);
      return result;
    };
    this.publishers.set(request, wrapped);
    return wrapped;
  }

  override async close(): Promise<void> {
    const { natsClient: connection, subscriptions } = this.internals();
    if (!connection) return;
    // Drain, not unsubscribe: requests NATS already delivered to this replica are still handled.
    await Promise.allSettled(subscriptions.map((subscription) => subscription.drain()));
    const graceMs = this.serverOptions.gracePeriod ?? 0;
    const idle = await this.inFlight.whenIdle(graceMs);
    if (!idle) this.abandonInFlight();
    this.inFlight.stop();
    try {
      await connection.drain();
    } catch {
      // already closed
    }
    await super.close();
    this.connected = false;
  }

  /** ServerNats keeps its connection and subscriptions private; this class needs both. */
  private internals(): { natsClient: NatsConnection | null; subscriptions: Subscription[] } {
    return this as unknown as { natsClient: NatsConnection | null; subscriptions: Subscription[] };
  }

  /** The grace period is over: every caller still waiting gets a retryable 503 now, not a timeout later. */
  private abandonInFlight(): void {
    const requests = this.inFlight.abandonAll();
    this.log.warn(`Shutdown grace period over with ${requests.length} request(s) or stream(s) in flight; answering them with 503`);
    const err = toRpcError(
      new GatewayError(503, 'The service replica shut down before it finished this request', {
        errorType: 'server',
        metadata: { reason: 'replica_shutdown', retryable: true },
      }),
    );
    for (const request of requests) {
      try {
        this.publishers.get(request)?.({ err });
      } catch {
        // the connection may be gone
      }
    }
  }
}
