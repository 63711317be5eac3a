import autocannon from 'autocannon';
import { CpuMeter, type NamedProcess } from './cpu.ts';

export interface Target {
  name: 'direct' | 'gateway' | 'responses' | 'sign' | 'portkey' | 'cached';
  label: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The server-side processes of this path, whose CPU time per request is reported. */
  processes: NamedProcess[];
  /** The stores' processes counted with them; default every PostgreSQL and Redis process of the machine. */
  stores?: () => NamedProcess[];
}

export interface RunFigures {
  connections: number;
  durationSeconds: number;
  /** Mean of autocannon's per-second samples. */
  requestsPerSecond: number;
  /** Milliseconds, from every 2xx response's own timing (autocannon's histogram has 1 ms resolution). */
  latencyMs: { mean: number; p50: number; p99: number; max: number };
  totalRequests: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /**
   * CPU µs per request of each server-side process of the path and of the shared stores
   * (`postgresql`, `redis`), their `total` (the load generator excluded), and `machine`: the
   * whole machine's busy CPU per request from /proc/stat (issue 17's figure; run it idle).
   * Steadier than req/s on a busy machine: it is work done, not waiting.
   */
  cpuMicrosPerRequest: Record<string, number>;
  /** Read and write system calls per request of the same processes (`CpuMeter.syscallsPerRequest`). */
  syscallsPerRequest: Record<string, { read: number; write: number }>;
}

/** One autocannon run; `signal` stops it early (the partial result is returned). */
export async function run(target: Target, connections: number, duration: number, signal: AbortSignal): Promise<RunFigures> {
  signal.throwIfAborted();
  const latencies: number[] = [];
  const cpu = new CpuMeter(target.processes, target.stores);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: 'POST',
        headers: target.headers,
        body: target.body,
        connections,
        duration,
        timeout: 10,
        title: target.name,
      },
      (error, result) => {
        signal.removeEventListener('abort', stop);
        if (error) reject(error);
        else resolve(result);
      },
    );
    const stop = () => instance.stop();
    signal.addEventListener('abort', stop, { once: true });
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  latencies.sort((a, b) => a - b);
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count]));
  return {
    connections,
    durationSeconds: result.duration,
    requestsPerSecond: round(result.requests.average),
    latencyMs: {
      mean: round(latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length), 3),
      p50: round(percentile(latencies, 50), 3),
      p99: round(percentile(latencies, 99), 3),
      max: round(latencies.at(-1) ?? 0, 3),
    },
    totalRequests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    cpuMicrosPerRequest: cpu.microsPerRequest(result.requests.total),
    syscallsPerRequest: cpu.syscallsPerRequest(result.requests.total),
  };
}

/** What went wrong in a run, if anything: any answer but 200, connection errors, timeouts. */
export function problemsOf(figures: RunFigures): string | undefined {
  const other = Object.entries(figures.statusCodes).filter(([code]) => code !== '200');
  const parts: string[] = [];
  if (figures.non2xx > 0) parts.push(`${figures.non2xx} non-2xx`);
  if (other.length > 0) parts.push(`status codes ${other.map(([code, count]) => `${code}×${count}`).join(', ')}`);
  if (figures.errors > 0) parts.push(`${figures.errors} errors (${figures.timeouts} timeouts)`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * One request with fetch before any load, so a misconfigured target fails with its answer
 * instead of thousands of anonymous non-2xx counts.
 */
export async function probe(target: Target): Promise<void> {
  const response = await fetch(target.url, {
    method: 'POST',
    headers: target.headers,
    body: target.body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${target.label} answered ${response.status}: ${text.slice(0, 500)}`);
  // A chat completion, a Responses-API response object (`output_text`), or daemon signature headers.
  const body = JSON.parse(text) as {
    choices?: Array<{ message?: { content?: string } }>;
    output_text?: string;
    'x-ori-invoke-signature'?: string;
  };
  const answer = body.choices?.[0]?.message?.content ?? body.output_text ?? body['x-ori-invoke-signature'];
  if (typeof answer !== 'string' || answer.length === 0)
    throw new Error(`${target.label} answered 200 without an answer: ${text.slice(0, 500)}`);
}
