import type { Principal } from '@gw/contracts';
import { counter, gauge, histogram } from '@gw/metrics';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/*
 * The gateway's HTTP series (issue 16). `route` is the route pattern (`/v1/keys/:hash`), never
 * the URL; `key_kind` is management / standard / intern / none. No key hash or user id.
 */
const requests = counter('gateway_http_requests_total', 'HTTP requests answered, by route, method, status and key kind', [
  'route',
  'method',
  'status',
  'key_kind',
]);
const duration = histogram('gateway_http_request_duration_seconds', 'Time to the answer (for a stream: to its end)', ['route', 'method']);
const inFlight = gauge('gateway_http_requests_in_flight', 'HTTP requests being answered', []);
const openStreams = gauge('gateway_open_streams', 'Server-sent event streams open to clients', ['route']);

type Timed = FastifyRequest & { principal?: Principal; metricsStart?: number; metricsDone?: boolean };

function routeOf(request: FastifyRequest): string {
  return request.routeOptions?.url ?? 'unmatched';
}

/** The series of one route and method, bound once: prom-client hashes a label object on every call otherwise. */
interface RouteSeries {
  duration: ReturnType<typeof duration.labels>;
  /** `status key_kind` -> the counter's child. */
  requests: Map<string, ReturnType<typeof requests.labels>>;
}

/** `method route` -> its series; bounded like the labels themselves (routes are patterns, methods few). */
const seriesByRoute = new Map<string, RouteSeries>();

function seriesOf(route: string, method: string): RouteSeries {
  const id = `${method} ${route}`;
  let series = seriesByRoute.get(id);
  if (!series) {
    series = { duration: duration.labels({ route, method }), requests: new Map() };
    seriesByRoute.set(id, series);
  }
  return series;
}

function record(request: Timed, status: number): void {
  const route = routeOf(request);
  const series = seriesOf(route, request.method);
  const keyKind = request.principal?.keyKind ?? 'none';
  const id = `${status} ${keyKind}`;
  let counted = series.requests.get(id);
  if (!counted) {
    counted = requests.labels({ route, method: request.method, status: String(status), key_kind: keyKind });
    series.requests.set(id, counted);
  }
  counted.inc();
  if (request.metricsStart !== undefined) series.duration.observe((performance.now() - request.metricsStart) / 1000);
}

function finish(request: Timed, status: number): void {
  if (request.metricsDone) return;
  request.metricsDone = true;
  inFlight.dec();
  record(request, status);
}

/** Counts and times every answer, streams included (their time runs to the stream's end). */
export function registerHttpMetrics(fastify: FastifyInstance): void {
  // Callback hooks (no promise per request and hook).
  fastify.addHook('onRequest', (request: Timed, _reply, done) => {
    request.metricsStart = performance.now();
    inFlight.inc();
    done();
  });
  fastify.addHook('onResponse', (request: Timed, reply, done) => {
    finish(request, reply.statusCode);
    done();
  });
  // A client that leaves before the answer: 499 (nginx's "client closed"), counted once whatever follows.
  fastify.addHook('onRequestAbort', (request: Timed, done) => {
    finish(request, 499);
    done();
  });
}

/**
 * A stream took the raw response over: it counts as open until the returned function is called.
 * (Its request is counted by onResponse, which Fastify still runs when the raw response ends.)
 */
export function streamStarted(request: FastifyRequest): () => void {
  const route = routeOf(request);
  openStreams.inc({ route });
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    openStreams.dec({ route });
  };
}
