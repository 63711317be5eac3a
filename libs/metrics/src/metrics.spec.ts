import { afterAll, describe, expect, it } from 'vitest';
import { closeMetricsServer, counter, histogram, initServiceMetrics, startMetricsServer } from './index.js';

describe('metrics', () => {
  const started = (async () => {
    initServiceMetrics('unit-test');
    return startMetricsServer(0, '127.0.0.1');
  })();
  afterAll(async () => closeMetricsServer(await started));

  it('serves every instrument, the service label and process metrics at /metrics, and 404 elsewhere', async () => {
    const server = await started;
    const port = (server.address() as { port: number }).port;
    counter('unit_things_total', 'Things', ['kind']).inc({ kind: 'a' }, 2);
    histogram('unit_wait_seconds', 'Waits', ['kind']).observe({ kind: 'a' }, 0.02);
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('unit_things_total{kind="a",service="unit-test"} 2');
    expect(text).toMatch(/unit_wait_seconds_bucket\{(?=[^}]*le="0.025")(?=[^}]*kind="a")(?=[^}]*service="unit-test")[^}]*\} 1/);
    expect(text).toMatch(/process_cpu_seconds_total\{service="unit-test"\} \d/);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });

  it('returns the same instrument for the same name instead of failing on a second registration', () => {
    expect(counter('unit_once_total', 'Once', [])).toBe(counter('unit_once_total', 'Once', []));
  });
});
