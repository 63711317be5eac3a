import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { ATTR, extractTraceContext, runWithRequestId, tracer, tracingEnabled } from '@gw/telemetry';
import type { FastifyInstance, FastifyRequest } from 'fastify';

type Traced = FastifyRequest & { traceSpan?: Span };

/**
 * The request's context for everything that runs on its behalf: its id as the
 * current request id (every log line of the gateway names it, and RPC calls carry it to the
 * services as `x-request-id`) and, with tracing on, an HTTP server span that continues the
 * client's `traceparent`, if it sent one, and is the parent of the NATS calls.
 *
 * The context is entered in `preValidation`, after the body was read: the body's stream
 * events run outside any hook's async context, so a context entered in `onRequest` would be
 * lost on every POST. With tracing off this is one AsyncLocalStorage run per request.
 */
export function registerRequestContext(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', (request, _reply, done) => {
    const span = (request as Traced).traceSpan;
    if (!span) {
      runWithRequestId(request.id, done);
      return;
    }
    context.with(trace.setSpan(context.active(), span), () => runWithRequestId(request.id, done));
  });
  if (!tracingEnabled()) return;
  fastify.addHook('onRequest', async (request: Traced) => {
    const route = request.routeOptions?.url;
    const parent = extractTraceContext({ get: (name) => headerOf(request, name) });
    request.traceSpan = tracer().startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          ...(route ? { 'http.route': route } : {}),
          'url.path': request.url.split('?')[0]!,
          [ATTR.requestId]: request.id,
        },
      },
      parent,
    );
  });
  fastify.addHook('onResponse', async (request: Traced, reply) => endSpan(request, reply.statusCode));
  fastify.addHook('onRequestAbort', async (request: Traced) => endSpan(request, 499));
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function endSpan(request: Traced, status: number): void {
  const span = request.traceSpan;
  if (!span) return;
  request.traceSpan = undefined;
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
