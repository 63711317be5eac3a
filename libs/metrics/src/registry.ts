import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's one Prometheus registry. Every instrument of every lib and app registers here,
 * so one `/metrics` answer holds them all. Labels stay bounded: model, provider, route,
 * status, subject, outcome; never a key hash, user id or workspace id (unbounded cardinality).
 */
export const metricsRegistry = new Registry();

let initialised = false;

/** Names the service on every series and turns on Node's process metrics (once per process). */
export function initServiceMetrics(service: string): void {
  if (initialised) return;
  initialised = true;
  metricsRegistry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: metricsRegistry });
}

/** Latency buckets in seconds: 1 ms to 2 min (a slow generation). */
export const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * Instruments are created lazily and once per name, so a module imported by both a test and the
 * service (or twice by two apps in one test process) never registers a name twice.
 */
export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return (
    (metricsRegistry.getSingleMetric(name) as Counter<L> | undefined) ??
    new Counter({ name, help, labelNames, registers: [metricsRegistry] })
  );
}

/** `collect`, when given, runs at every scrape to set the gauge from state kept elsewhere (prom-client's collect). */
export function gauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  collect?: (this: Gauge<L>) => void,
): Gauge<L> {
  return (
    (metricsRegistry.getSingleMetric(name) as Gauge<L> | undefined) ??
    new Gauge({ name, help, labelNames, registers: [metricsRegistry], ...(collect ? { collect } : {}) })
  );
}

export function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[] = LATENCY_BUCKETS,
): Histogram<L> {
  return (
    (metricsRegistry.getSingleMetric(name) as Histogram<L> | undefined) ??
    new Histogram({ name, help, labelNames, buckets, registers: [metricsRegistry] })
  );
}
