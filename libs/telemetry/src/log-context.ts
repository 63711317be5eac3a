import { currentRequestId } from './request-context.js';
import { activeSpanIds, tracingEnabled } from './tracing.js';

/**
 * pino's `mixin`: every log line written while a request is handled carries its `request_id`,
 * and with tracing on the active span's `trace_id` and `span_id`, in every service (issue 16).
 * A new object each time: pino merges the line's own fields into it.
 */
export function logContext(): Record<string, string> {
  const requestId = currentRequestId();
  if (!tracingEnabled()) return requestId ? { request_id: requestId } : {};
  const ids = activeSpanIds();
  const fields: Record<string, string> = {};
  if (requestId) fields.request_id = requestId;
  if (ids) {
    fields.trace_id = ids.traceId;
    fields.span_id = ids.spanId;
  }
  return fields;
}
