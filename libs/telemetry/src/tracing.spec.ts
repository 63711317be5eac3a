import { context, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  contextOfTraceparent,
  currentTraceparent,
  extractTraceContext,
  initTracing,
  injectTraceContext,
  linkOfTraceparent,
  logContext,
  runWithRequestId,
  tracer,
  tracingEnabled,
} from './index.js';

const exporter = new InMemorySpanExporter();

describe('tracing on (an in-memory exporter)', () => {
  beforeAll(async () => {
    expect(await initTracing('unit-test', { exporter })).toBe(true);
  });

  it('turns on, names the service, and puts trace and span ids in log fields', () => {
    expect(tracingEnabled()).toBe(true);
    const span = tracer().startSpan('work');
    const fields = context.with(trace.setSpan(context.active(), span), () => runWithRequestId('req-7', logContext));
    span.end();
    expect(fields).toEqual({ request_id: 'req-7', trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
    const [exported] = exporter.getFinishedSpans().filter((finished) => finished.name === 'work');
    expect(exported?.resource.attributes['service.name']).toBe('unit-test');
  });

  it('carries the W3C trace context through headers and a traceparent string', () => {
    const parent = tracer().startSpan('caller', { kind: SpanKind.CLIENT });
    const headers = new Map<string, string>();
    injectTraceContext({ set: (name, value) => headers.set(name, value) }, trace.setSpan(context.active(), parent));
    const { traceId, spanId } = parent.spanContext();
    expect(headers.get('traceparent')).toBe(`00-${traceId}-${spanId}-01`);
    const remote = trace.getSpanContext(extractTraceContext({ get: (name) => headers.get(name) }));
    expect(remote).toMatchObject({ traceId, spanId, isRemote: true });
    const traceparent = currentTraceparent(trace.setSpan(context.active(), parent));
    expect(traceparent).toBe(headers.get('traceparent'));
    expect(trace.getSpanContext(contextOfTraceparent(traceparent))?.traceId).toBe(traceId);
    expect(linkOfTraceparent(traceparent)?.context.spanId).toBe(spanId);
    expect(linkOfTraceparent('garbage')).toBeUndefined();
    parent.end();
  });
});
