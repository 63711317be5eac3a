import { readFileSync } from 'node:fs';

/** VmRSS of a /proc/<pid>/status text, in bytes; undefined when absent. */
export function parseVmRssBytes(status: string): number | undefined {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}

/**
 * The value of the first sample of `name` in a Prometheus text exposition, labelled or not (each
 * service sets a default `service` label); undefined when absent.
 */
export function parsePrometheusValue(text: string, name: string): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    let rest = line.slice(name.length);
    if (rest.startsWith('{')) rest = rest.slice(rest.indexOf('}') + 1);
    else if (!rest.startsWith(' ')) continue; // a longer name
    const value = Number(rest.trim().split(/\s+/)[0]);
    if (Number.isFinite(value)) return value;
  }
  return undefined;
}

/** The process's resident memory now, in bytes; undefined when it is gone. */
export function residentBytes(pid: number): number | undefined {
  try {
    return parseVmRssBytes(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * prom-client's default event-loop metrics: percentiles of Node's loop-delay histogram since
 * the previous scrape (prom-client resets the histogram on every collection). Node samples the
 * loop every 10 ms (prom-client's default precision), so an idle loop reads about 10 ms.
 */
export const EVENT_LOOP_LAG_P99 = 'nodejs_eventloop_lag_p99_seconds';
export const EVENT_LOOP_LAG_MAX = 'nodejs_eventloop_lag_max_seconds';

export interface ProcessSampleSummary {
  /** RSS samples taken (one a second). */
  samples: number;
  /** Largest VmRSS seen, MB (10^6 bytes), and VmRSS when the phase began. */
  rssMaxMB: number;
  rssStartMB: number;
  /** p99 and max of the event-loop delay over the whole phase, ms; undefined without metrics. */
  eventLoopLagP99Ms: number | undefined;
  eventLoopLagMaxMs: number | undefined;
}

async function scrape(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A process's RSS once a second, and its event-loop delay over a phase: one scrape of its
 * /metrics when started (which resets prom-client's histogram, nothing else scrapes the bench's
 * stack) and one when stopped, so the p99 is exactly the phase's.
 */
export class ProcessSampler {
  private readonly rss: number[] = [];
  private readonly rssStart: number;
  private readonly timer: NodeJS.Timeout;
  private readonly pid: number;
  private readonly metricsUrl: string | undefined;

  private constructor(pid: number, metricsUrl: string | undefined, intervalMs: number) {
    this.pid = pid;
    this.metricsUrl = metricsUrl;
    this.rssStart = residentBytes(pid) ?? 0;
    this.timer = setInterval(() => {
      const rss = residentBytes(this.pid);
      if (rss !== undefined) this.rss.push(rss);
    }, intervalMs);
  }

  static async start(pid: number, metricsUrl: string | undefined, intervalMs = 1_000): Promise<ProcessSampler> {
    if (metricsUrl) await scrape(metricsUrl);
    return new ProcessSampler(pid, metricsUrl, intervalMs);
  }

  async stop(): Promise<ProcessSampleSummary> {
    clearInterval(this.timer);
    const last = residentBytes(this.pid);
    if (last !== undefined) this.rss.push(last);
    const text = this.metricsUrl ? await scrape(this.metricsUrl) : undefined;
    const ms = (seconds: number | undefined) => (seconds === undefined ? undefined : Math.round(seconds * 100_000) / 100);
    const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
    return {
      samples: this.rss.length,
      rssMaxMB: mb(Math.max(this.rssStart, ...this.rss)),
      rssStartMB: mb(this.rssStart),
      eventLoopLagP99Ms: ms(text === undefined ? undefined : parsePrometheusValue(text, EVENT_LOOP_LAG_P99)),
      eventLoopLagMaxMs: ms(text === undefined ? undefined : parsePrometheusValue(text, EVENT_LOOP_LAG_MAX)),
    };
  }
}
