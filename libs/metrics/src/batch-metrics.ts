import type { Counter, Gauge } from 'prom-client';
import { counter, gauge } from './registry.js';

/*
 * The batch service's series (issue 16), defined here so they exist (at zero) from the
 * service's start, whatever feeds them later. Created on first use, so only the batch
 * service's /metrics lists them. Labels bounded: fixed states and outcomes, catalog provider ids.
 */

export const BATCH_LINE_STATES = ['queued', 'running'] as const;
export const BATCH_LINE_OUTCOMES = ['succeeded', 'failed', 'expired', 'cancelled'] as const;

export interface BatchMetrics {
  /** Lines of open batches by state: `queued` (waiting for a worker) or `running` (being run now). */
  lines: Gauge<'state'>;
  /** Lines finished, by outcome: `rate()` of it is lines per second. */
  linesProcessed: Counter<'outcome'>;
  /** Provider-native batches submitted and not finished yet, by provider (catalog id). */
  nativeBatchesInFlight: Gauge<'provider'>;
}

/** The batch instruments (the same objects on every call). */
export function batchMetrics(): BatchMetrics {
  return {
    lines: gauge('batch_lines', 'Batch lines by state (queued: waiting for a worker; running: being run now)', ['state']),
    linesProcessed: counter('batch_lines_processed_total', 'Batch lines finished, by outcome (rate() gives lines per second)', ['outcome']),
    nativeBatchesInFlight: gauge('batch_native_batches_in_flight', 'Provider-native batches submitted and not finished yet, by provider', [
      'provider',
    ]),
  };
}

/** Publishes every batch series at zero (the batch service calls it once at start). */
export function initBatchMetrics(): BatchMetrics {
  const metrics = batchMetrics();
  for (const state of BATCH_LINE_STATES) metrics.lines.set({ state }, 0);
  for (const outcome of BATCH_LINE_OUTCOMES) metrics.linesProcessed.inc({ outcome }, 0);
  return metrics;
}
