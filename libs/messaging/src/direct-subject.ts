import { Logger } from '@nestjs/common';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { GatewayError, toRpcError } from '@gw/errors';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { ATTR, extractTraceContext, REQUEST_ID_HEADER, runWithRequestId, tracer, tracingEnabled } from '@gw/telemetry';
import { RPC_BODY_HEADER } from './large-bodies.js';
import type { PlainSubjectNatsServer } from './nats-server.strategy.js';

/** A request-reply handler served without Nest's dispatch: the request's `data`, its reply (or a thrown error). */
export type DirectHandler = (data: unknown) => Promise<unknown>;

/** LOG_LEVEL debug or trace: a line per message handled, as PlainSubjectNatsServer writes (ADR 0050). */
const DEBUG_LOGS = ['debug', 'trace'].includes((process.env.LOG_LEVEL ?? '').toLowerCase());

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Serves one hot request-reply subject with a plain NATS subscription on the service's own
 * transport connection, beside Nest's (ADR 0070). Nest's microservice dispatch (context
 * creation, pipes, interceptors, filters, RxJS, serializer) was the largest cost of a daemon
 * signature after the Ed25519 signature itself. Kept from the transport, so callers see no
 * difference:
 * - the wire format `{pattern, data, id}` in, `{response | err, isDisposed: true, id}` back, the
 *   error as the one typed shape (`toRpcError`), an unexpected error logged with an `error_id`
 *   and answered as a bare 500, as `AllRpcExceptionsFilter` does;
 * - the queue group, so the replicas share the subject;
 * - liveness (ADR 0025): the request is one of the server's in-flight requests, so it gets
 *   heartbeats while it runs;
 * - graceful stop (ADR 0026): the subscription joins the server's own list, so `close()` drains
 *   it first and waits for its requests like any other;
 * - the request id and, with tracing on, a SERVER span continuing the caller's trace (ADR 0050).
 * Not supported, and refused with a 400: request bodies through the object store (ADR 0031);
 * the subjects served this way carry small payloads.
 */
export function serveDirect(server: PlainSubjectNatsServer, subject: string, queue: string, handler: DirectHandler): Subscription {
  const internals = server as unknown as { natsClient: NatsConnection | null; subscriptions: Subscription[] };
  const connection = internals.natsClient;
  if (!connection) throw new Error(`serveDirect(${subject}) before the server is listening`);
  const served: Served = { server, connection, subject, handler, logger: new Logger('NatsServer'), outbox: new Outbox() };
  const subscription = connection.subscribe(subject, {
    queue,
    callback: (error, message) => {
      if (error || !message.reply) return; // a request without a reply subject has nobody to answer
      const requestId = message.headers?.get(REQUEST_ID_HEADER) || undefined;
      if (tracingEnabled()) void handleTraced(served, message, requestId);
      else void runWithRequestId(requestId, () => handle(served, message));
    },
  });
  // ServerNats keeps its subscriptions private, as PlainSubjectNatsServer reads them: close() drains this one too.
  internals.subscriptions.push(subscription);
  return subscription;
}

/** One subject served: what its messages are handled with. */
interface Served {
  server: PlainSubjectNatsServer;
  connection: NatsConnection;
  subject: string;
  handler: DirectHandler;
  logger: Logger;
  outbox: Outbox;
}

/**
 * Replies leave together once per turn of the event loop (`setImmediate`): nats.js writes its
 * outbound buffer to the socket in a microtask after the first publish into an empty buffer, so
 * replies finished in different microtask waves or I/O callbacks each cost a socket write; on
 * loopback a write is a system call and a wake-up of nats-server, the largest cost left per
 * signature in a profile. Batched, every reply of the turn goes out in one write.
 */
class Outbox {
  private pending: Array<() => void> = [];

  add(send: () => void): void {
    this.pending.push(send);
    if (this.pending.length === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const sends = this.pending;
    this.pending = [];
    for (const send of sends) send();
  }
}

async function handleTraced(served: Served, message: Msg, requestId: string | undefined): Promise<void> {
  const parent = extractTraceContext(message.headers);
  const span = tracer().startSpan(
    served.subject,
    {
      kind: SpanKind.SERVER,
      attributes: { [ATTR.messagingSystem]: 'nats', [ATTR.messagingDestination]: served.subject, [ATTR.messagingOperation]: 'process' },
    },
    parent,
  );
  if (requestId) span.setAttribute(ATTR.requestId, requestId);
  await context.with(trace.setSpan(parent, span), () => runWithRequestId(requestId, () => handle(served, message, span)));
}

async function handle(served: Served, message: Msg, span?: Span): Promise<void> {
  const { server, logger } = served;
  if (DEBUG_LOGS) logger.debug(`Handling ${served.subject}`);
  server.inFlight.attach(served.connection);
  await server.inFlight.track(message.reply!, async (request) => {
    request.replying = true; // heartbeats while it runs (ADR 0025)
    let id: unknown;
    let reply: string;
    try {
      const packet = parsePacket(message);
      id = packet.id;
      reply = JSON.stringify({ response: await served.handler(packet.data), isDisposed: true, id });
    } catch (error) {
      const err = toRpcError(error);
      if (!(error instanceof GatewayError)) {
        const errorId = crypto.randomUUID();
        logger.error({ errorId, err: error }, 'Unhandled error in message handler');
        err.metadata = { ...err.metadata, error_id: errorId };
      }
      if (span) markFailure(span, err.status, err.error_type, err.message);
      reply = JSON.stringify({ err, isDisposed: true, id });
    }
    const bytes = encoder.encode(reply);
    // Still in flight until the reply is handed to the connection: a graceful stop waits for it.
    served.outbox.add(() => {
      try {
        message.respond(bytes);
      } catch {
        // connection closing or closed: the caller's liveness timeout takes over
      } finally {
        span?.end();
        server.inFlight.done(request);
      }
    });
  });
}

/** Nest's request packet `{pattern, data, id}`; anything else is a 400 (never a crash of the subscription). */
function parsePacket(message: Msg): { data: unknown; id: unknown } {
  if (message.headers?.get(RPC_BODY_HEADER)) throw badPacket('request bodies through the object store are not served on this subject');
  let packet: unknown;
  try {
    packet = JSON.parse(decoder.decode(message.data));
  } catch {
    throw badPacket('not JSON');
  }
  if (typeof packet !== 'object' || packet === null || !('data' in packet)) throw badPacket('no data');
  return packet as { data: unknown; id: unknown };
}

function badPacket(why: string): GatewayError {
  return new GatewayError(400, `Malformed request packet: ${why}`);
}

function markFailure(span: Span, status: number, errorType: string | undefined, message: string): void {
  span.setAttribute('http.response.status_code', status);
  if (errorType) span.setAttribute(ATTR.errorType, errorType);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message });
}
