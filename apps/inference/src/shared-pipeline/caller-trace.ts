import { context, trace } from '@opentelemetry/api';

/** Spec §4.5 observability trace metadata: the keys with special handling. */
const KEYS = ['trace_id', 'trace_name', 'span_name', 'generation_name', 'parent_span_id'] as const;
const TRACE_ID = /^[\da-f]{32}$/;
const SPAN_ID = /^[\da-f]{16}$/;
/** Longest value kept as an attribute (a caller's names, not a document). */
const MAX_VALUE = 256;

/**
 * The caller's own trace (the body's `trace`, spec §4.5) on the span of the request (tracing on
 * only): each special key as `gw.caller_trace.<key>`, and when `trace_id` and
 * `parent_span_id` are W3C ids, a link to that span, so a tracing backend joins the
 * generation to the caller's trace. Other keys are not exported (no destination is configured).
 */
export function recordCallerTrace(metadata: unknown): void {
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) return;
  const span = trace.getSpan(context.active());
  if (!span) return;
  const values = metadata as Record<string, unknown>;
  for (const key of KEYS) {
    const value = values[key];
    if (typeof value === 'string' && value.length > 0) span.setAttribute(`gw.caller_trace.${key}`, value.slice(0, MAX_VALUE));
  }
  const traceId = typeof values.trace_id === 'string' ? values.trace_id.toLowerCase() : '';
  const spanId = typeof values.parent_span_id === 'string' ? values.parent_span_id.toLowerCase() : '';
  if (TRACE_ID.test(traceId) && SPAN_ID.test(spanId) && !/^0+$/.test(traceId) && !/^0+$/.test(spanId)) {
    span.addLink({ context: { traceId, spanId, traceFlags: 1, isRemote: true }, attributes: { 'gw.link': 'caller_trace' } });
  }
}
