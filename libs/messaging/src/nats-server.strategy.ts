import { Logger } from '@nestjs/common';
import { ServerNats, type NatsOptions } from '@nestjs/microservices';
import {
  headers as natsHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type PublishOptions,
  type Subscription,
} from '@nats-io/transport-node';
import { GatewayError, toRpcError } from '@gw/errors';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { ATTR, extractTraceContext, REQUEST_ID_HEADER, runWithRequestId, tracer, tracingEnabled } from '@gw/telemetry';
import type { JetStreamPlacement } from './jetstream-placement.js';
import { EMPTY, LargeBodies, RPC_BODY_HEADER } from './large-bodies.js';
import { RelayedMsg } from './relayed-msg.js';
import { InFlightRequests, type InFlightRequest } from './rpc-liveness.js';
import { randomToken } from './rpc-client.js';
import { STREAM_ERROR_HEADERS, STREAM_HEADER } from './rpc-stream.js';
import { StreamFrameWriter } from './stream-frame-writer.js';
import { parseWindow, STREAM_CREDIT_HEADER, STREAM_WINDOW_HEADER, StreamWindow } from './stream-window.js';
import { withHeaders } from './trace-headers.js';
import { writeOncePerTurn } from './writes-per-turn.js';
import { PRINCIPAL_HEADER } from './principal/principal-token.js';
import type { PrincipalVerifier } from './principal/principal-verifier.js';

type NatsServerOptions = NonNullable<NatsOptions['options']> & {
  /** How often a request still being handled tells its caller the replica is alive (ADR 0025). */
  heartbeatMs: number;
  /** Largest reply sent inline; larger go through the object store (default: max_payload minus 16 KB; ADR 0031). */
  inlineMaxBytes?: number;
  /** Replicas and tags of the object store of large bodies, when this server creates it. */
  jetstream?: JetStreamPlacement;
  /** Checks the signed principal of every request acting for a tenant; unset on a bus without credentials. */
  principals?: PrincipalVerifier;
};

/** LOG_LEVEL debug or trace: a line per message handled, with its request id (and trace id), in every service. */
const DEBUG_LOGS = ['debug', 'trace'].includes((process.env.LOG_LEVEL ?? '').toLowerCase());

const encoder = new TextEncoder();

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
 *   Nest's path;
 * - bodies over NATS's max_payload (ADR 0031): a request with `Gw-Body-Ref` is read from the
 *   object store RPC_BODIES before Nest sees it, and a reply too large for one message is put
 *   there and sent as a reference (in order with the packets after it);
 * - stream frames (ADR 0067): when the caller asked for them and the handler opted in
 *   (`useStreamFrames()`), each emission goes out as raw bytes, frames of one turn in one
 *   message (`StreamFrameWriter`), instead of a JSON packet per emission;
 * - flow control per stream of frames (ADR 0084): a caller that announced a window
 *   (`Gw-Stream-Window`) is told in the first message where to send its credit
 *   (`events.<service>.stream.credit.<replica>.<stream>`, one wildcard subscription per replica),
 *   and the handler pauses its source while a window is unacknowledged (`currentStreamWindow`).
 */
export class PlainSubjectNatsServer extends ServerNats {
  readonly inFlight: InFlightRequests;
  private readonly log = new Logger('NatsServer');
  private connected = false;
  private largeBodies?: LargeBodies;
  /** Flow-controlled streams in flight by the last token of their credit subject (ADR 0084). */
  private readonly windows = new Map<string, StreamWindow>();
  /** `events.<service>.stream.credit.<replica>` per service this replica took windowed streams for, subscribed on first use. */
  private readonly creditPrefixes = new Map<string, string>();
  private readonly replicaToken = randomToken();
  private windowSequence = 0;

  constructor(private readonly serverOptions: NatsServerOptions) {
    super(serverOptions);
    this.inFlight = new InFlightRequests(serverOptions.heartbeatMs);
  }

  /** What checks the principal of a request acting for a tenant (the guard on Nest's path, `serveDirect` on its own). */
  get principals(): PrincipalVerifier | undefined {
    return this.serverOptions.principals;
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

  /** Nest's connection, writing once per loop turn like every connection of the services (ADR 0088). */
  override async createNatsClient(): Promise<NatsConnection> {
    return writeOncePerTurn(await super.createNatsClient());
  }

  /** Resolves once nats-server has registered every subscription (a PING/PONG round trip). */
  async flush(): Promise<void> {
    await this.internals().natsClient?.flush();
  }

  protected override getRouteFromPattern(pattern: string): string {
    return pattern.startsWith('{') ? super.getRouteFromPattern(pattern) : this.normalizePattern(pattern);
  }

  /**
   * Every message is handled with the request id it carries as the current one (so the
   * handler's log lines name it) and, with tracing on, inside a server span that continues the
   * caller's trace (`traceparent`, ADR 0050). With tracing off this costs one header read.
   */
  override handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    const headers = natsMsg.headers;
    const requestId = headers?.get(REQUEST_ID_HEADER) || undefined;
    // Kept for the calls the handler makes for this request (the guard checked it first).
    const principal = headers?.get(PRINCIPAL_HEADER) || undefined;
    if (!tracingEnabled()) return runWithRequestId(requestId, () => this.handle(channel, natsMsg), principal);
    return this.handleTraced(channel, natsMsg, requestId, principal);
  }

  private async handleTraced(
    channel: string,
    natsMsg: Msg,
    requestId: string | undefined,
    principal: string | undefined,
  ): Promise<unknown> {
    const headers = natsMsg.headers;
    const parent = extractTraceContext(headers);
    const span = tracer().startSpan(
      channel,
      {
        kind: natsMsg.reply ? SpanKind.SERVER : SpanKind.CONSUMER,
        attributes: {
          [ATTR.messagingSystem]: 'nats',
          [ATTR.messagingDestination]: channel,
          [ATTR.messagingOperation]: natsMsg.reply ? 'process' : 'receive',
        },
      },
      parent,
    );
    if (requestId) span.setAttribute(ATTR.requestId, requestId);
    return await context.with(trace.setSpan(parent, span), () =>
      runWithRequestId(requestId, () => this.handle(channel, natsMsg, span), principal),
    );
  }

  private async handle(channel: string, natsMsg: Msg, span?: Span): Promise<unknown> {
    if (DEBUG_LOGS) this.log.debug(`Handling ${channel}`);
    if (!natsMsg.reply) {
      try {
        return await super.handleMessage(channel, natsMsg.headers?.get(RPC_BODY_HEADER) ? await this.withStoredBody(natsMsg) : natsMsg);
      } finally {
        span?.end();
      }
    }
    this.inFlight.attach(this.internals().natsClient!);
    return this.inFlight.track(natsMsg.reply, async (request) => {
      request.span = span;
      request.framesAccepted = natsMsg.headers?.get(STREAM_HEADER) === 'frames';
      const windowBytes = request.framesAccepted ? parseWindow(natsMsg.headers?.get(STREAM_WINDOW_HEADER)) : undefined;
      if (windowBytes) request.window = new StreamWindow(windowBytes);
      try {
        let message = natsMsg;
        if (natsMsg.headers?.get(RPC_BODY_HEADER)) {
          try {
            message = await this.withStoredBody(natsMsg);
          } catch (error) {
            this.log.warn(`Request body of ${channel} could not be read from the object store: ${(error as Error).message}`);
            const err = toRpcError(
              new GatewayError(503, 'The request body could not be read; send it again', {
                errorType: 'server',
                metadata: { reason: 'body_lost', retryable: true },
              }),
            );
            natsMsg.respond(encoder.encode(JSON.stringify({ err, isDisposed: true })));
            return undefined;
          }
        }
        return await super.handleMessage(channel, this.withLargeReplies(message, request));
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
    // Stream frames (ADR 0067): the handler writes them to this sink (useStreamFrames), past Nest's packets.
    const window = request.framesAccepted ? request.window : undefined;
    const creditKey = window ? (++this.windowSequence).toString(36) : undefined;
    const frames = request.framesAccepted
      ? new StreamFrameWriter(
          (data, options) => natsMsg.respond(data, options),
          window && creditKey ? { window, firstHeaders: this.openWindow(natsMsg.subject, creditKey, window) } : undefined,
        )
      : undefined;
    if (frames) request.frameSink = { write: (frame) => frames.write(frame), end: () => frames.end() };
    const wrapped: Publisher = (packet) => {
      // Nest marks the end with isDisposed (merged into the last queued packet) or sends err.
      const failed = packet.err !== undefined && packet.err !== null;
      const last = packet.isDisposed === true || failed;
      if (failed && request.span) markRpcFailure(request.span, packet.err);
      let result: unknown;
      if (frames && request.frames) {
        // A handler that ended its frames itself (FrameSink.end) left Nest's end nothing to say.
        if (!frames.isEnded) {
          // An emission of a handler that took the sink is a frame too.
          if (packet.response !== undefined) frames.write(String(packet.response));
          if (failed) {
            // The frames written before the failure first, then Nest's error packet, marked as such.
            frames.flush();
            result = natsMsg.respond(JSON.stringify({ ...packet, id }), { headers: STREAM_ERROR_HEADERS });
          } else if (packet.isDisposed === true) frames.end();
        }
      } else {
        result = publish(packet);
      }
      if (last && creditKey) {
        this.windows.delete(creditKey);
        window!.release();
      }
      if (last) this.replied(request);
      return result;
    };
    request.abandon = wrapped;
    return wrapped;
  }

  /**
   * Registers a stream's window under its credit subject and answers the headers of its first
   * message of frames, which name that subject. The replica's credit subscription is made on its
   * first windowed stream, on the connection the frames go out on, so it is registered at
   * nats-server before the caller can have read anything to grant credit for.
   */
  private openWindow(channel: string, key: string, window: StreamWindow): MsgHdrs {
    const service = channel.split('.')[0]!;
    let prefix = this.creditPrefixes.get(service);
    if (!prefix) {
      prefix = `events.${service}.stream.credit.${this.replicaToken}`;
      this.creditPrefixes.set(service, prefix);
      const start = prefix.length + 1;
      const decoder = new TextDecoder();
      this.internals().natsClient!.subscribe(`${prefix}.*`, {
        callback: (_error, message) => this.windows.get(message.subject.slice(start))?.grant(Number(decoder.decode(message.data))),
      });
    }
    this.windows.set(key, window);
    const headers = natsHeaders();
    headers.set(STREAM_HEADER, 'frames');
    headers.set(STREAM_CREDIT_HEADER, `${prefix}.${key}`);
    return headers;
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

  private bodies(): LargeBodies {
    this.largeBodies ??= new LargeBodies(this.internals().natsClient!, {
      inlineMaxBytes: this.serverOptions.inlineMaxBytes,
      placement: this.serverOptions.jetstream,
    });
    return this.largeBodies;
  }

  /**
   * The queue group's subscription to one subject on the transport connection, served by
   * `callback` without Nest's dispatch (ADR 0070, 0079); `close()` drains it with Nest's own.
   */
  subscribeServed(subject: string, queue: string, callback: (message: Msg) => void): Subscription {
    const { natsClient: connection, subscriptions } = this.internals();
    if (!connection) throw new Error(`Serving ${subject} before the server is listening`);
    const subscription = connection.subscribe(subject, {
      queue,
      callback: (error, message) => {
        if (!error) callback(message);
      },
    });
    subscriptions.push(subscription);
    this.inFlight.attach(connection);
    return subscription;
  }

  /**
   * A request's last reply was handed to the connection: it leaves the in-flight set once a
   * reply still on its way through the object store has left too.
   */
  replied(request: InFlightRequest): void {
    const pending = request.replyChain;
    if (pending) void pending.finally(() => this.inFlight.done(request));
    else this.inFlight.done(request);
  }

  /**
   * A served request's one reply (ADR 0079): inline when it fits, the common case, at the cost of
   * `respond` alone; else through the object store (ADR 0031), and `replied` waits until it left.
   * Nothing is wrapped or registered per request for the rare large reply (ADR 0086).
   */
  sendReply(request: InFlightRequest, natsMsg: Msg, bytes: Uint8Array, headers?: MsgHdrs): void {
    const options = headers ? { headers } : undefined;
    if (this.bodies().tooLargeInline(bytes.length)) {
      request.replyChain = this.sendStored(natsMsg, bytes, options);
      return;
    }
    try {
      natsMsg.respond(bytes, options);
    } catch {
      // connection closing or closed: the caller's liveness timeout takes over
    }
  }

  /** The message as Nest would have received it had the body fitted: same subject, reply and headers, the stored bytes. */
  async withStoredBody(natsMsg: Msg): Promise<Msg> {
    const data = await this.bodies().get(natsMsg.headers!.get(RPC_BODY_HEADER));
    return new RelayedMsg(natsMsg, data, undefined);
  }

  /**
   * Replies too large for one message go through the object store; once one did, the packets
   * after it queue behind it so the caller still reads them in order.
   */
  private withLargeReplies(natsMsg: Msg, request: InFlightRequest): Msg {
    const bodies = this.bodies();
    let chain: Promise<void> | undefined;
    const respond = (payload: Uint8Array | string = EMPTY, options?: PublishOptions): boolean => {
      // Nest's serializer hands over a JSON string; a string fits when even 3 bytes a character would.
      const fits = typeof payload === 'string' ? !bodies.tooLargeInline(payload.length * 3) : !bodies.tooLargeInline(payload.length);
      if (!chain && fits) return natsMsg.respond(payload, options);
      const data = typeof payload === 'string' ? encoder.encode(payload) : payload;
      chain = (chain ?? Promise.resolve()).then(async () => {
        if (!bodies.tooLargeInline(data.length)) {
          natsMsg.respond(data, options);
          return;
        }
        await this.sendStored(natsMsg, data, options);
      });
      request.replyChain = chain;
      return true;
    };
    return new RelayedMsg(natsMsg, undefined, respond);
  }

  /** A reply by reference to the object store; if it cannot be stored, the retryable 503 `reply_lost` instead. */
  private async sendStored(natsMsg: Msg, data: Uint8Array, options?: PublishOptions): Promise<void> {
    try {
      // The reply's own headers (a stream frame's Gw-Stream, ADR 0067; Gw-Reply, ADR 0078) travel with the reference.
      const { headers } = await this.bodies().put(data);
      natsMsg.respond(EMPTY, { headers: withHeaders(headers, options?.headers) });
    } catch (error) {
      this.log.error(`A reply of ${data.length} bytes could not be stored in the object store: ${(error as Error).message}`);
      const err = toRpcError(
        new GatewayError(503, 'The reply could not be sent', {
          errorType: 'server',
          metadata: { reason: 'reply_lost', retryable: true },
        }),
      );
      try {
        natsMsg.respond(encoder.encode(JSON.stringify({ err, isDisposed: true })));
      } catch {
        // connection closing or closed: the caller's liveness timeout takes over (and no rejection for `replied` to leave unhandled)
      }
    }
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
        request.abandon?.({ err });
      } catch {
        // the connection may be gone
      }
    }
  }
}

/** The error a handler answered with, on its span: 5xx marks it failed, a 4xx only names the status. */
function markRpcFailure(span: Span, err: unknown): void {
  const status = typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : 500;
  const errorType = (err as { errorType?: unknown; error_type?: unknown }).errorType ?? (err as { error_type?: unknown }).error_type;
  span.setAttribute('http.response.status_code', status);
  if (typeof errorType === 'string') span.setAttribute(ATTR.errorType, errorType);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: String((err as { message?: unknown }).message ?? 'error') });
}
