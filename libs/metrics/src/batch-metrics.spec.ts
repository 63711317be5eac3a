import { describe, expect, it } from 'vitest';
import { batchMetrics, initBatchMetrics, metricsRegistry } from './index.js';

describe('batch series (issue 16)', () => {
  it('are absent until the batch service initialises them, then present at zero', async () => {
    expect(await metricsRegistry.metrics()).not.toContain('batch_lines');
    initBatchMetrics();
    const text = await metricsRegistry.metrics();
    expect(text).toContain('batch_lines{state="queued"} 0');
    expect(text).toContain('batch_lines{state="running"} 0');
    expect(text).toContain('batch_lines_processed_total{outcome="succeeded"} 0');
    expect(text).toContain('# TYPE batch_native_batches_in_flight gauge');
  });

  it('are the same instruments on every call, for the worker to feed', async () => {
    const metrics = batchMetrics();
    expect(batchMetrics().lines).toBe(metrics.lines);
    metrics.lines.inc({ state: 'queued' }, 3);
    metrics.linesProcessed.inc({ outcome: 'succeeded' });
    metrics.nativeBatchesInFlight.set({ provider: 'simulator-openai' }, 2);
    const text = await metricsRegistry.metrics();
    expect(text).toContain('batch_lines{state="queued"} 3');
    expect(text).toContain('batch_lines_processed_total{outcome="succeeded"} 1');
    expect(text).toContain('batch_native_batches_in_flight{provider="simulator-openai"} 2');
  });
});
