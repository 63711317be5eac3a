import { context, propagation, ROOT_CONTEXT, trace, type Context, type Link } from '@opentelemetry/api';
import { tracingEnabled } from './tracing.js';

/** W3C trace context headers, as carried on HTTP requests and NATS messages alike. */
export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';

/** Something headers can be written to (NATS MsgHdrs, a plain object). */
export interface HeaderSetter {
  set(name: string, value: string): void;
}

/** Something headers can be read from. */
export interface HeaderGetter {
  get(name: string): string | undefined;
}

/** Writes the active span's `traceparent` (and `tracestate`) to `headers`; nothing while tracing is off. */
export function injectTraceContext(headers: HeaderSetter, from: Context = context.active()): void {
  if (!tracingEnabled()) return;
  propagation.inject(from, headers, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
}

/** The remote parent `headers` carry (the root context when they carry none, or tracing is off). */
export function extractTraceContext(headers: HeaderGetter | undefined): Context {
  if (!tracingEnabled() || !headers) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, {
    get: (carrier, key) => carrier.get(key) || undefined,
    keys: () => [TRACEPARENT_HEADER, TRACESTATE_HEADER],
  });
}

/** `traceparent` of the active span as a string, for a carrier that is not a header set (an event's body). */
export function currentTraceparent(from: Context = context.active()): string | undefined {
  if (!tracingEnabled()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  return carrier[TRACEPARENT_HEADER];
}

/** The context a `traceparent` string names (the root context when absent or malformed). */
export function contextOfTraceparent(traceparent: string | undefined): Context {
  if (!tracingEnabled() || !traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { [TRACEPARENT_HEADER]: traceparent });
}

/** A span link to the span a `traceparent` names, when it names a valid one. */
export function linkOfTraceparent(traceparent: string | undefined): Link | undefined {
  const spanContext = trace.getSpanContext(contextOfTraceparent(traceparent));
  return spanContext && trace.isSpanContextValid(spanContext) ? { context: spanContext } : undefined;
}
