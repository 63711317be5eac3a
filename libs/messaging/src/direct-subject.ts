import { Logger, type Type } from '@nestjs/common';
import type { Msg, MsgHdrs, Subscription } from '@nats-io/transport-node';
import { validateDto } from '@gw/contracts';
import { GatewayError, toRpcError, type RpcErrorPayload } from '@gw/errors';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { ATTR, extractTraceContext, REQUEST_ID_HEADER, runWithRequestId, tracer, tracingEnabled } from '@gw/telemetry';
import { JSON_REPLY_HEADERS, JsonAnswer, REPLY_HEADER } from './json-reply.js';
import { RPC_BODY_HEADER } from './large-bodies.js';
import type { PlainSubjectNatsServer } from './nats-server.strategy.js';
import { PRINCIPAL_HEADER } from './principal/principal-token.js';

/** A request-reply handler served without Nest's dispatch: the request's `data`, its reply (or a thrown error). */
export type DirectHandler = (data: unknown) => Promise<unknown>;

export interface ServeDirectOptions {
  /**
   * The payload's contract class: `data` is validated with it (unknown fields stripped, a 400 on
   * failure), as `PayloadValidationPipe` does on Nest's path. Unset: the payload is trusted as
   * it arrived (ADR 0054, 0056): only for subjects whose every caller validated it.
   */
  payload?: Type<object>;
}

/** LOG_LEVEL debug or trace: a line per message handled, as PlainSubjectNatsServer writes (ADR 0050). */
const DEBUG_LOGS = ['debug', 'trace'].includes((process.env.LOG_LEVEL ?? '').toLowerCase());

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Serves one hot request-reply subject with a plain NATS subscription on the service's own
 * transport connection, beside Nest's (ADR 0070, generalised by ADR 0079, which also gives the
 * `@ServedSubject` decorator that calls this at start). Nest's microservice dispatch (context
 * creation, pipes, interceptors, filters, RxJS, serializer) was the largest cost of a daemon
 * signature after the signature itself, and a share of every chat request. Kept from the
 * transport, so callers see no difference:
 * - the wire format `{pattern, data, id}` in, `{response | err, isDisposed: true, id}` back, the
 *   error as the one typed shape (`toRpcError`), an unexpected error logged with an `error_id`
 *   and answered as a bare 500, as `AllRpcExceptionsFilter` does; with `Gw-Reply: json` on the
 *   request, a success is the answer's JSON alone (ADR 0078);
 * - payload validation with the contract class unless the subject is trusted (`options.payload`);
 * - the queue group, so the replicas share the subject;
 * - liveness (ADR 0025): the request is one of the server's in-flight requests, so it gets
 *   heartbeats while it runs and `markCommitted()` works in its handler;
 * - graceful stop (ADR 0026): the subscription joins the server's own list, so `close()` drains
 *   it first and waits for its requests like any other, and answers those still running at the
 *   end of the grace period with the retryable 503;
 * - bodies over max_payload (ADR 0031): a request body in the object store is read first, a
 *   reply too large for one message is stored there;
 * - the request id and, with tracing on, a SERVER span continuing the caller's trace (ADR 0050).
 */
export function serveDirect(
  server: PlainSubjectNatsServer,
  subject: string,
  queue: string,
  handler: DirectHandler,
  options: ServeDirectOptions = {},
): Subscription {
  const served: Served = {
    server,
    subject,
    handler,
    payload: options.payload,
    logger: new Logger('NatsServer'),
    errors: new Logger('RpcExceptions'),
  };
  return server.subscribeServed(subject, queue, (message) => {
    if (!message.reply) return; // a request without a reply subject has nobody to answer
    const requestId = message.headers?.get(REQUEST_ID_HEADER) || undefined;
    const principal = message.headers?.get(PRINCIPAL_HEADER) || undefined;
    if (tracingEnabled()) void handleTraced(served, message, requestId, principal);
    else void runWithRequestId(requestId, () => handle(served, message), principal);
  });
}

/** One subject served: what its messages are handled with. */
interface Served {
  server: PlainSubjectNatsServer;
  subject: string;
  handler: DirectHandler;
  payload: Type<object> | undefined;
  logger: Logger;
  /** Unexpected errors are logged under the context AllRpcExceptionsFilter uses. */
  errors: Logger;
}

async function handleTraced(served: Served, message: Msg, requestId: string | undefined, principal: string | undefined): Promise<void> {
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
  await context.with(trace.setSpan(parent, span), () => runWithRequestId(requestId, () => handle(served, message, span), principal));
}

async function handle(served: Served, message: Msg, span?: Span): Promise<void> {
  const { server } = served;
  if (DEBUG_LOGS) served.logger.debug(`Handling ${served.subject}`);
  await server.inFlight.track(message.reply!, async (request) => {
    request.replying = true; // heartbeats while it runs (ADR 0025)
    request.span = span; // ended when the reply has left (InFlightRequests.done)
    let id: unknown;
    let answered = false;
    // The grace period of a graceful stop ended first: a retryable 503 now, as on Nest's path.
    request.abandon = ({ err }) => {
      answered = true;
      respond(message, JSON.stringify({ err, isDisposed: true, id }));
    };
    let body: string;
    let headers: MsgHdrs | undefined;
    try {
      const packet = parsePacket(message.headers?.get(RPC_BODY_HEADER) ? await storedBody(server, message) : message);
      id = packet.id;
      server.principals?.verify(served.subject, message.headers, packet.data);
      const data = served.payload ? await validateDto(served.payload, packet.data, 'strip') : packet.data;
      const answer = await served.handler(data);
      if (answer instanceof JsonAnswer) {
        const json = message.headers?.get(REPLY_HEADER) === 'json';
        body = json ? answer.text : JSON.stringify({ response: JSON.parse(answer.text) as unknown, isDisposed: true, id });
        if (json) headers = answer.headers;
      } else if (answer !== undefined && message.headers?.get(REPLY_HEADER) === 'json') {
        body = JSON.stringify(answer);
        headers = JSON_REPLY_HEADERS;
      } else {
        body = JSON.stringify({ response: answer, isDisposed: true, id });
      }
    } catch (error) {
      const err = rpcError(served, error);
      if (span) markFailure(span, err.status, err.error_type, err.message);
      body = JSON.stringify({ err, isDisposed: true, id });
    }
    const bytes = encoder.encode(body);
    // Still in flight until the reply is handed to the connection (or, over max_payload, stored
    // and sent by reference, ADR 0031): a graceful stop waits for it. The connection writes the
    // replies of one loop turn together (ADR 0088).
    if (!answered) server.sendReply(request, message, bytes, headers);
    server.replied(request);
  });
}

function respond(message: Msg, body: string): void {
  try {
    message.respond(body);
  } catch {
    // connection closing or closed: the caller's liveness timeout takes over
  }
}

/** The request body from the object store; a failure is the retryable 503 Nest's path answers. */
async function storedBody(server: PlainSubjectNatsServer, message: Msg): Promise<Msg> {
  try {
    return await server.withStoredBody(message);
  } catch (error) {
    new Logger('NatsServer').warn(
      `Request body of ${message.subject} could not be read from the object store: ${(error as Error).message}`,
    );
    throw new GatewayError(503, 'The request body could not be read; send it again', {
      errorType: 'server',
      metadata: { reason: 'body_lost', retryable: true },
    });
  }
}

/** What AllRpcExceptionsFilter makes of a handler's error. */
function rpcError(served: Served, error: unknown): RpcErrorPayload {
  const err = toRpcError(error);
  if (!(error instanceof GatewayError)) {
    const errorId = crypto.randomUUID();
    served.errors.error({ errorId, err: error }, 'Unhandled error in message handler');
    err.metadata = { ...err.metadata, error_id: errorId };
  }
  return err;
}

/** Nest's request packet `{pattern, data, id}`; anything else is a 400 (never a crash of the subscription). */
function parsePacket(message: Msg): { data: unknown; id: unknown } {
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
