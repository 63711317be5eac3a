import { Logger, type Type } from '@nestjs/common';
import type { ModulesContainer } from '@nestjs/core';
import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { PATTERN_HANDLER_METADATA, PATTERN_METADATA } from '@nestjs/microservices/constants.js';
import { headers as natsHeaders, type Msg, type MsgHdrs, type Subscription } from '@nats-io/transport-node';
import { isTrustedSubject, tenancyOf, validateDto } from '@gw/contracts';
import { GatewayError, toRpcError, type RpcErrorPayload } from '@gw/errors';
import { context, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import {
  ATTR,
  extractTraceContext,
  REQUEST_ID_HEADER,
  runWithRequestId,
  tracer,
  tracingEnabled,
  type RequestPrincipal,
} from '@gw/telemetry';
import type { JetStreamPlacement } from './jetstream-placement.js';
import { JSON_REPLY_HEADERS, JsonAnswer, REPLY_HEADER } from './json-reply.js';
import { EMPTY, LargeBodies, RPC_BODY_HEADER } from './large-bodies.js';
import { ResilientNatsConnection, type NatsAuth } from './nats-connection.js';
import { randomToken } from './rpc-client.js';
import { InFlightRequests, type InFlightRequest } from './rpc-liveness.js';
import { STREAM_ERROR_HEADERS, STREAM_HEADER } from './rpc-stream.js';
import { ServedStream } from './served-stream.js';
import { StreamFrameWriter } from './stream-frame-writer.js';
import { parseWindow, STREAM_CREDIT_HEADER, STREAM_WINDOW_HEADER, StreamWindow } from './stream-window.js';
import { withHeaders } from './trace-headers.js';
import { PRINCIPAL_HEADER, requestPrincipalOf } from './principal/principal-token.js';
import type { PrincipalVerifier } from './principal/principal-verifier.js';

export interface BusServerOptions {
  servers: string;
  /** The service's queue group (and connection name): its replicas share every subject. */
  queue: string;
  auth?: NatsAuth;
  /** How often a request still being handled tells its caller the replica is alive. */
  heartbeatMs: number;
  /** How long `close()` waits for the requests and streams in flight. */
  gracePeriodMs: number;
  /** Largest reply sent inline; larger go through the object store (default: max_payload minus 16 KB). */
  inlineMaxBytes?: number;
  /** Replicas and tags of the object store of large bodies, when this server creates it. */
  jetstream?: JetStreamPlacement;
  /** Checks the signed principal of every request acting for a tenant; unset on a bus without credentials. */
  principals?: PrincipalVerifier;
}

/** A controller method named by `@MessagePattern` or `@EventPattern`, as the server calls it. */
interface Handler {
  subject: string;
  call: (data: unknown) => unknown;
  /** The class the payload is validated with; undefined: trusted (the catalog says every caller validated it) or untyped. */
  payload: Type<object> | undefined;
  event: boolean;
}

/** What a message carries besides its body, read in one place. */
interface Inbound {
  requestId: string | undefined;
  /** The caller's trace, with tracing on. */
  trace: Context | undefined;
  /** The gateway-signed principal, kept for the calls the handler makes and the ids it mints for this request. */
  principal: RequestPrincipal | undefined;
}

/** LOG_LEVEL debug or trace: a line per message handled, with its request id (and trace id). */
const DEBUG_LOGS = ['debug', 'trace'].includes((process.env.LOG_LEVEL ?? '').toLowerCase());
const UNVALIDATED = new Set<unknown>([undefined, Object, String, Number, Boolean, Array]);
/** Nest's `PatternHandler.EVENT`: the method is an `@EventPattern`. */
const PATTERN_EVENT = 2;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The one NATS server of every service, as a Nest transport strategy: each `@MessagePattern` and
 * `@EventPattern` method of the app's controllers gets its subscription in the service's queue
 * group and is called with its payload, validated with its parameter's class unless the catalog
 * declares the message trusted. One dispatch for requests, streams and events, with:
 * - the request id and, with tracing on, a span continuing the caller's trace;
 * - replies as Nest's `{response | err, isDisposed, id}` packet, or the answer's JSON alone for a
 *   caller that asked (`Gw-Reply: json`); errors as the one typed shape, an unexpected one logged
 *   with an `error_id` and answered as a bare 500;
 * - liveness: heartbeats on the reply subject of every request in flight, and `markCommitted()`;
 * - streams (a handler answering a `ServedStream`) as frames, the client's bytes, those of one
 *   turn in one message, flow-controlled by the caller's window and credit;
 * - bodies over max_payload through the object store, both ways, replies kept in order;
 * - a graceful `close()`: drain the subscriptions, wait for what is in flight (bounded), answer
 *   the rest with a retryable 503.
 */
export class BusServer extends Server implements CustomTransportStrategy {
  readonly inFlight: InFlightRequests;
  private readonly log = new Logger('NatsServer');
  private readonly errors = new Logger('RpcExceptions');
  private handlers: Handler[] = [];
  private nats?: ResilientNatsConnection;
  private readonly subscriptions: Subscription[] = [];
  private largeBodies?: LargeBodies;
  /** Flow-controlled streams in flight by the last token of their credit subject. */
  private readonly windows = new Map<string, StreamWindow>();
  /** `events.<service>.stream.credit.<replica>` per service this replica took windowed streams for, subscribed on first use. */
  private readonly creditPrefixes = new Map<string, string>();
  private readonly replicaToken = randomToken();
  private windowSequence = 0;

  constructor(private readonly options: BusServerOptions) {
    super();
    this.inFlight = new InFlightRequests(options.heartbeatMs);
  }

  /** Serves the pattern methods of these modules' controllers (called before `listen`). */
  serveControllersOf(modules: ModulesContainer): void {
    this.handlers = handlersOf(modules);
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      const { servers, queue, auth, jetstream } = this.options;
      // Fail closed at boot too: a request subject no tenancy declares would refuse every caller.
      const undeclared = this.options.principals ? this.handlers.filter((handler) => !handler.event && !tenancyOf(handler.subject)) : [];
      if (undeclared.length > 0)
        throw new Error(`No tenancy declared (message-tenancy.ts) for ${undeclared.map((handler) => handler.subject).join(', ')}`);
      this.nats = await ResilientNatsConnection.open({ servers, name: queue, auth, jetstream });
      const connection = this.nats.connection;
      this.inFlight.attach(connection);
      for (const handler of this.handlers) {
        const subscription = connection.subscribe(handler.subject, {
          queue,
          callback: (error, message) => {
            if (!error) this.onMessage(handler, message);
          },
        });
        this.subscriptions.push(subscription);
      }
      callback();
    } catch (error) {
      callback(error);
    }
  }

  /** Connected to NATS now (false while reconnecting and after close). */
  isConnected(): boolean {
    return this.nats?.isConnected() ?? false;
  }

  /** Resolves once nats-server has registered every subscription (a PING/PONG round trip). */
  async flush(): Promise<void> {
    await this.nats?.connection.flush();
  }

  unwrap<T>(): T {
    if (!this.nats) throw new Error('The bus server is not listening');
    return this.nats.connection as T;
  }

  /** Nest's status events are not used: `isConnected()` says what the probes need. */
  on(): void {}

  async close(): Promise<void> {
    const nats = this.nats;
    if (!nats) return;
    // Drain, not unsubscribe: requests NATS already delivered to this replica are still handled.
    await Promise.allSettled(this.subscriptions.map((subscription) => subscription.drain()));
    if (!(await this.inFlight.whenIdle(this.options.gracePeriodMs))) this.abandonInFlight();
    this.inFlight.stop();
    try {
      await nats.close();
    } catch {
      // already closed
    }
  }

  /** The one place inbound headers are read (a check of who sent the message belongs here). */
  private inbound(message: Msg): Inbound {
    const headers = message.headers;
    const token = headers?.get(PRINCIPAL_HEADER);
    return {
      requestId: headers?.get(REQUEST_ID_HEADER) || undefined,
      trace: tracingEnabled() ? extractTraceContext(headers) : undefined,
      principal: token ? requestPrincipalOf(token) : undefined,
    };
  }

  private onMessage(handler: Handler, message: Msg): void {
    const inbound = this.inbound(message);
    if (!inbound.trace) {
      void runWithRequestId(inbound.requestId, () => this.handle(handler, message), inbound.principal);
      return;
    }
    const request = !handler.event && message.reply !== undefined && message.reply !== '';
    const span = tracer().startSpan(
      handler.subject,
      {
        kind: request ? SpanKind.SERVER : SpanKind.CONSUMER,
        attributes: {
          [ATTR.messagingSystem]: 'nats',
          [ATTR.messagingDestination]: handler.subject,
          [ATTR.messagingOperation]: request ? 'process' : 'receive',
        },
      },
      inbound.trace,
    );
    if (inbound.requestId) span.setAttribute(ATTR.requestId, inbound.requestId);
    void context.with(trace.setSpan(inbound.trace, span), () =>
      runWithRequestId(inbound.requestId, () => this.handle(handler, message, span), inbound.principal),
    );
  }

  private async handle(handler: Handler, message: Msg, span?: Span): Promise<void> {
    if (DEBUG_LOGS) this.log.debug(`Handling ${handler.subject}`);
    if (handler.event || !message.reply) {
      await this.serveEvent(handler, message, span);
      return;
    }
    await this.inFlight.track(message.reply, async (request) => {
      request.span = span; // ended when the last reply has left (InFlightRequests.done)
      let id: unknown;
      request.abandon = (err) => respond(message, JSON.stringify({ err, isDisposed: true, id }));
      try {
        const packet = await this.packetOf(message);
        id = packet.id;
        this.options.principals?.verify(handler.subject, message.headers, packet.data);
        const answer = await handler.call(handler.payload ? await validateDto(handler.payload, packet.data, 'strip') : packet.data);
        if (answer instanceof ServedStream) await this.stream(request, message, answer, id);
        else this.answer(request, message, answer, id);
      } catch (error) {
        this.deliver(request, message, JSON.stringify({ err: this.rpcError(error, span), isDisposed: true, id }));
      }
      this.replied(request);
    });
  }

  private async serveEvent(handler: Handler, message: Msg, span?: Span): Promise<void> {
    try {
      const packet = await this.packetOf(message);
      await handler.call(handler.payload ? await validateDto(handler.payload, packet.data, 'strip') : packet.data);
    } catch (error) {
      const err = this.rpcError(error, span);
      if (error instanceof GatewayError) this.log.warn(`Event on ${handler.subject} refused: ${err.message}`);
    } finally {
      span?.end();
    }
  }

  /** One answer: Nest's packet, or the answer's JSON alone for a caller that accepts it. */
  private answer(request: InFlightRequest, message: Msg, answer: unknown, id: unknown): void {
    const json = message.headers?.get(REPLY_HEADER) === 'json';
    if (answer instanceof JsonAnswer) {
      if (json) this.deliver(request, message, answer.text, answer.headers);
      else this.deliver(request, message, JSON.stringify({ response: JSON.parse(answer.text) as unknown, isDisposed: true, id }));
    } else if (json && answer !== undefined) {
      this.deliver(request, message, JSON.stringify(answer), JSON_REPLY_HEADERS);
    } else {
      this.deliver(request, message, JSON.stringify({ response: answer, isDisposed: true, id }));
    }
  }

  /**
   * A stream: its frames go out as the bodies of reply messages (the first marked
   * `Gw-Stream: frames`, naming the credit subject when the caller announced a window), the last
   * marked `end`; a failure sends the frames written before it, then the error packet marked `error`.
   */
  private async stream(request: InFlightRequest, message: Msg, stream: ServedStream, id: unknown): Promise<void> {
    const size = parseWindow(message.headers?.get(STREAM_WINDOW_HEADER));
    const window = size ? new StreamWindow(size) : undefined;
    request.window = window;
    const creditKey = window ? (++this.windowSequence).toString(36) : undefined;
    const frames = new StreamFrameWriter(
      (data, options) => this.deliver(request, message, data, options.headers),
      window && creditKey ? { window, firstHeaders: this.openWindow(message.subject, creditKey, window) } : undefined,
    );
    const abort = new AbortController();
    request.abandon = (err) => {
      abort.abort();
      frames.flush();
      respond(message, JSON.stringify({ err, isDisposed: true, id }), STREAM_ERROR_HEADERS);
    };
    try {
      await stream.run({ write: (frame) => frames.write(frame), signal: abort.signal, window });
      frames.end();
    } catch (error) {
      frames.flush();
      this.deliver(
        request,
        message,
        JSON.stringify({ err: this.rpcError(error, request.span), isDisposed: true, id }),
        STREAM_ERROR_HEADERS,
      );
    } finally {
      if (window && creditKey) {
        this.windows.delete(creditKey);
        window.release();
      }
    }
  }

  /**
   * Registers a stream's window under its credit subject and answers the headers of its first
   * message of frames, which name that subject. The replica's credit subscription is made on its
   * first windowed stream, so it is registered before the caller can have read anything.
   */
  private openWindow(channel: string, key: string, window: StreamWindow): MsgHdrs {
    const service = channel.split('.')[0]!;
    let prefix = this.creditPrefixes.get(service);
    if (!prefix) {
      prefix = `events.${service}.stream.credit.${this.replicaToken}`;
      this.creditPrefixes.set(service, prefix);
      const start = prefix.length + 1;
      this.nats!.connection.subscribe(`${prefix}.*`, {
        callback: (_error, credit) => this.windows.get(credit.subject.slice(start))?.grant(Number(decoder.decode(credit.data))),
      });
    }
    this.windows.set(key, window);
    const headers = natsHeaders();
    headers.set(STREAM_HEADER, 'frames');
    headers.set(STREAM_CREDIT_HEADER, `${prefix}.${key}`);
    return headers;
  }

  /**
   * Every reply, frame and error of a request leaves here: inline when it fits, the common case;
   * else through the object store, and once one did, the replies after it queue behind it so the
   * caller reads them in order.
   */
  private deliver(request: InFlightRequest, message: Msg, data: string | Uint8Array, headers?: MsgHdrs): void {
    if (request.abandoned) return;
    const bodies = this.bodies();
    // A string fits when even 3 bytes a character would.
    const fits = !bodies.tooLargeInline(typeof data === 'string' ? data.length * 3 : data.length);
    if (!request.replyChain && fits) {
      respond(message, data, headers);
      return;
    }
    const bytes = typeof data === 'string' ? encoder.encode(data) : data;
    request.replyChain = (request.replyChain ?? Promise.resolve()).then(() =>
      bodies.tooLargeInline(bytes.length) ? this.sendStored(message, bytes, headers) : respond(message, bytes, headers),
    );
  }

  /** A reply by reference to the object store; if it cannot be stored, the retryable 503 `reply_lost` instead. */
  private async sendStored(message: Msg, data: Uint8Array, headers?: MsgHdrs): Promise<void> {
    try {
      // The reply's own headers (Gw-Stream, Gw-Reply) travel with the reference.
      const stored = await this.bodies().put(data);
      respond(message, EMPTY, headers ? withHeaders(stored.headers, headers) : stored.headers);
    } catch (error) {
      this.log.error(`A reply of ${data.length} bytes could not be stored in the object store: ${(error as Error).message}`);
      const err = toRpcError(
        new GatewayError(503, 'The reply could not be sent', { errorType: 'server', metadata: { reason: 'reply_lost', retryable: true } }),
      );
      respond(message, JSON.stringify({ err, isDisposed: true }));
    }
  }

  /** A request's last reply was handed over: it leaves the in-flight set once a stored reply has left too. */
  private replied(request: InFlightRequest): void {
    const pending = request.replyChain;
    if (pending) void pending.finally(() => this.inFlight.done(request));
    else this.inFlight.done(request);
  }

  /** Nest's request packet `{pattern, data, id}`, its body read from the object store when it was too large for a message. */
  private async packetOf(message: Msg): Promise<{ data: unknown; id: unknown }> {
    let body = message.data;
    const ref = message.headers?.get(RPC_BODY_HEADER);
    if (ref) {
      try {
        body = await this.bodies().get(ref);
      } catch (error) {
        this.log.warn(`Request body of ${message.subject} could not be read from the object store: ${(error as Error).message}`);
        throw new GatewayError(503, 'The request body could not be read; send it again', {
          errorType: 'server',
          metadata: { reason: 'body_lost', retryable: true },
        });
      }
    }
    let packet: unknown;
    try {
      packet = JSON.parse(decoder.decode(body));
    } catch {
      throw new GatewayError(400, 'Malformed request packet: not JSON');
    }
    if (typeof packet !== 'object' || packet === null || !('data' in packet))
      throw new GatewayError(400, 'Malformed request packet: no data');
    return packet as { data: unknown; id: unknown };
  }

  /** The one error mapping: the typed shape; an unexpected error logged with an id, a bare 500; the span marked. */
  private rpcError(error: unknown, span: Span | undefined): RpcErrorPayload {
    const err = toRpcError(error);
    if (!(error instanceof GatewayError)) {
      const errorId = crypto.randomUUID();
      this.errors.error({ errorId, err: error }, 'Unhandled error in message handler');
      err.metadata = { ...err.metadata, error_id: errorId };
    }
    if (span) {
      span.setAttribute('http.response.status_code', err.status);
      if (err.error_type) span.setAttribute(ATTR.errorType, err.error_type);
      if (err.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
    }
    return err;
  }

  private bodies(): LargeBodies {
    this.largeBodies ??= new LargeBodies(this.nats!.connection, {
      inlineMaxBytes: this.options.inlineMaxBytes,
      placement: this.options.jetstream,
    });
    return this.largeBodies;
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
      request.abandon?.(err);
      request.abandoned = true;
    }
  }
}

function respond(message: Msg, data: string | Uint8Array, headers?: MsgHdrs): void {
  try {
    message.respond(data, headers ? { headers } : undefined);
  } catch {
    // connection closing or closed: the caller's liveness timeout takes over
  }
}

/** Every `@MessagePattern` / `@EventPattern` method of the modules' controllers. */
function handlersOf(modules: ModulesContainer): Handler[] {
  const handlers: Handler[] = [];
  for (const module of modules.values()) {
    for (const wrapper of module.controllers.values()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance) continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const method = Object.getOwnPropertyDescriptor(prototype, name)?.value as ((data: unknown) => unknown) | undefined;
        if (name === 'constructor' || typeof method !== 'function') continue;
        const kind = Reflect.getMetadata(PATTERN_HANDLER_METADATA, method) as number | undefined;
        if (kind === undefined) continue;
        const parameter = (Reflect.getMetadata('design:paramtypes', prototype, name) as unknown[] | undefined)?.[0];
        for (const subject of Reflect.getMetadata(PATTERN_METADATA, method) as unknown[]) {
          if (typeof subject !== 'string') throw new Error(`${name}: a pattern is a subject string`);
          if (handlers.some((handler) => handler.subject === subject)) throw new Error(`${subject} is served by two methods`);
          handlers.push({
            subject,
            call: (data) => method.call(instance, data),
            // The parameter's class, as Nest's validation pipe read it.
            payload: isTrustedSubject(subject) || UNVALIDATED.has(parameter) ? undefined : (parameter as Type<object>),
            event: kind === PATTERN_EVENT,
          });
        }
      }
    }
  }
  return handlers;
}
