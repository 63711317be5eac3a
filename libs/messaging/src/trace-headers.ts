import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { GatewayError } from '@gw/errors';
import { ATTR, currentRequestId, injectTraceContext, REQUEST_ID_HEADER, tracer, tracingEnabled } from '@gw/telemetry';

/*
 * What a NATS request carries besides its body: the request id (`x-request-id`)
 * whenever the caller handles one, and with tracing on the W3C `traceparent` of a client span
 * for the call, which the service's handler span continues.
 */

export interface OutgoingCall {
  headers?: MsgHdrs;
  /** The caller's span for this call (tracing on only); ended with the reply or the stream's end. */
  span?: Span;
}

const NONE: OutgoingCall = {};

/** Headers (and span) of a request-reply call to `subject`; nothing at all outside a request with tracing off. */
export function outgoingCall(subject: string): OutgoingCall {
  const requestId = currentRequestId();
  if (!tracingEnabled()) {
    if (!requestId) return NONE;
    const headers = natsHeaders();
    headers.set(REQUEST_ID_HEADER, requestId);
    return { headers };
  }
  const span = tracer().startSpan(subject, {
    kind: SpanKind.CLIENT,
    attributes: { [ATTR.messagingSystem]: 'nats', [ATTR.messagingDestination]: subject, [ATTR.messagingOperation]: 'send' },
  });
  const headers = natsHeaders();
  if (requestId) headers.set(REQUEST_ID_HEADER, requestId);
  injectTraceContext(headers, trace.setSpan(context.active(), span));
  return { headers, span };
}

/** `base` (an object-store reference) with the call's own headers added. */
export function withHeaders(base: MsgHdrs, own: MsgHdrs | undefined): MsgHdrs {
  if (own) for (const key of own.keys()) base.set(key, own.get(key));
  return base;
}

/** Ends a call's span: an error answer marks it failed with its status and canonical type. */
export function endCallSpan(span: Span, error?: unknown): void {
  if (error !== undefined) markFailed(span, error);
  span.end();
}

/** Records a failure on a span: status ERROR, `error.type`, the HTTP status it maps to. */
export function markFailed(span: Span, error: unknown): void {
  if (error instanceof GatewayError) {
    span.setAttribute(ATTR.errorType, error.errorType);
    span.setAttribute('http.response.status_code', error.status);
    // A client's mistake (4xx) is not this span's failure.
    if (error.status < 500) return;
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    return;
  }
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
