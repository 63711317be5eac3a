import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePrometheusValue, parseVmRssBytes, residentBytes } from './process-samples.ts';

describe('process samples', () => {
  it('reads VmRSS from /proc/<pid>/status, this process included', () => {
    expect(parseVmRssBytes('Name:\tnode\nVmHWM:\t  90000 kB\nVmRSS:\t   81234 kB\nRssAnon:\t 1 kB\n')).toBe(81234 * 1024);
    expect(parseVmRssBytes('Name:\tkthreadd\n')).toBeUndefined();
    const own = parseVmRssBytes(readFileSync('/proc/self/status', 'utf8'));
    expect(own).toBeGreaterThan(10 * 1024 * 1024);
    expect(residentBytes(process.pid)).toBeGreaterThan(10 * 1024 * 1024);
    expect(residentBytes(2 ** 30)).toBeUndefined();
  });

  it("reads a sample from prom-client's text, labelled or not, not one of a longer name", () => {
    const text = [
      '# HELP nodejs_eventloop_lag_p99_seconds The 99th percentile of the recorded event loop delays.',
      '# TYPE nodejs_eventloop_lag_p99_seconds gauge',
      'nodejs_eventloop_lag_p99_seconds_total 9',
      'nodejs_eventloop_lag_p99_seconds{service="api-gateway"} 0.012345',
      'nodejs_eventloop_lag_max_seconds_total 8',
      'nodejs_eventloop_lag_mean_seconds 0.0101',
      '',
    ].join('\n');
    expect(parsePrometheusValue(text, 'nodejs_eventloop_lag_p99_seconds')).toBe(0.012345);
    expect(parsePrometheusValue(text, 'nodejs_eventloop_lag_mean_seconds')).toBe(0.0101);
    expect(parsePrometheusValue(text, 'nodejs_eventloop_lag_max_seconds')).toBeUndefined();
  });
});
