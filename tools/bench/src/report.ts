import { cpus, loadavg, totalmem } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions } from './options.ts';
import { round, type RunFigures, type Target } from './measure.ts';

export interface MachineInfo {
  cpuModel: string;
  cpuCount: number;
  totalMemoryBytes: number;
  totalMemoryGiB: number;
  nodeVersion: string;
  platform: string;
  arch: string;
  /** 1, 5 and 15 minute load averages when the bench started: other work skews the figures. */
  loadAverageAtStart: number[];
}

export interface TargetResult {
  label: string;
  url: string;
  /** `connections` connections, `throughputDuration` seconds. */
  throughput: RunFigures;
  /** One connection, `latencyDuration` seconds. */
  latency: RunFigures;
  /** Requests of the two warm-ups (not measured, but checked for failures too). */
  warmup: { totalRequests: number; non2xx: number; errors: number };
}

export interface BenchResult {
  timestamp: string;
  ok: boolean;
  problems: string[];
  machine: MachineInfo;
  options: BenchOptions & { logLevel: string; model: { direct: string; gateway: string } };
  /** Medians over the rounds. `portkey` is absent when it was skipped or could not be installed. */
  targets: { direct: TargetResult; gateway: TargetResult; responses: TargetResult; sign: TargetResult; portkey?: TargetResult };
  /** Every round, in order. */
  rounds: { direct: TargetResult[]; gateway: TargetResult[]; responses: TargetResult[]; sign: TargetResult[]; portkey?: TargetResult[] };
  comparison: Comparison & {
    /** `/v1/responses` against direct, and against `/v1/chat/completions` (what the Responses front door adds). */
    responses: Comparison & { versusChatCompletions: Comparison };
    /** The same figures for Portkey's gateway against direct, and ours against Portkey's. */
    portkey?: Comparison & {
      /** Our req/s ÷ Portkey's req/s at `connections` connections (the team's goal: ≥ 8). */
      gatewayThroughputMultiple: number;
    };
  };
  /** Why Portkey was not measured, when it was not. */
  portkeySkipped?: string;
  /** The batch scenario (issue 13), unless skipped with --batch-lines 0. */
  batch?: import('./batch-scenario.ts').BatchScenarioResult;
}

export interface Comparison {
  /** Target mean − direct mean at one connection, ms. */
  addedMeanLatencyMs: number;
  addedP50LatencyMs: number;
  /** Target req/s ÷ direct req/s at `connections` connections. */
  throughputRatio: number;
}

export function machineInfo(): MachineInfo {
  const cores = cpus();
  return {
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    cpuCount: cores.length,
    totalMemoryBytes: totalmem(),
    totalMemoryGiB: round(totalmem() / 1024 ** 3, 1),
    nodeVersion: process.version,
    platform: process.platform,
    arch: process.arch,
    loadAverageAtStart: loadavg().map((value) => round(value)),
  };
}

export function targetResult(target: Target, throughput: RunFigures, latency: RunFigures, warmups: RunFigures[]): TargetResult {
  return {
    label: target.label,
    url: target.url,
    throughput,
    latency,
    warmup: {
      totalRequests: warmups.reduce((sum, run) => sum + run.totalRequests, 0),
      non2xx: warmups.reduce((sum, run) => sum + run.non2xx, 0),
      errors: warmups.reduce((sum, run) => sum + run.errors, 0),
    },
  };
}

export function compare(direct: TargetResult, gateway: TargetResult): Comparison {
  return {
    addedMeanLatencyMs: round(gateway.latency.latencyMs.mean - direct.latency.latencyMs.mean, 3),
    addedP50LatencyMs: round(gateway.latency.latencyMs.p50 - direct.latency.latencyMs.p50, 3),
    throughputRatio: direct.throughput.requestsPerSecond > 0 ? round(gateway.throughput.requestsPerSecond / direct.throughput.requestsPerSecond, 3) : 0,
  };
}

/** Writes bench-results/bench-<timestamp>.json and bench-results/latest.json; returns the first path. */
export function writeResult(root: string, result: BenchResult): string {
  const directory = join(root, 'bench-results');
  mkdirSync(directory, { recursive: true });
  const json = `${JSON.stringify(result, null, 2)}\n`;
  // ISO 8601 with ':' and '.' replaced, so the name is safe on every file system.
  const file = join(directory, `bench-${result.timestamp.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, json);
  writeFileSync(join(directory, 'latest.json'), json);
  return file;
}

const fixed = (value: number, digits: number) => value.toFixed(digits);

export function formatTable(result: BenchResult): string {
  const { direct, gateway, responses, sign, portkey } = result.targets;
  const { connections } = result.options;
  const columns = portkey ? [direct, gateway, responses, sign, portkey] : [direct, gateway, responses, sign];
  const cells = (value: (target: TargetResult) => string) => columns.map(value);
  const vsPortkey = result.comparison.portkey;
  const rows: string[][] = [
    ['', 'simulator direct', 'through gateway', 'gateway /v1/responses', 'gateway daemon sign', ...(portkey ? ['through Portkey'] : []), 'gateway vs direct', ...(vsPortkey ? ['gateway vs Portkey'] : [])],
    [
      `requests/s, ${connections} connections`,
      ...cells((target) => fixed(target.throughput.requestsPerSecond, 1)),
      `×${fixed(result.comparison.throughputRatio, 3)}`,
      ...(vsPortkey ? [`×${fixed(vsPortkey.gatewayThroughputMultiple, 2)}`] : []),
    ],
    [`  latency mean / p99 (ms)`, ...cells((target) => `${fixed(target.throughput.latencyMs.mean, 2)} / ${fixed(target.throughput.latencyMs.p99, 2)}`), '', ...(vsPortkey ? [''] : [])],
    [
      'latency mean (ms), 1 connection',
      ...cells((target) => fixed(target.latency.latencyMs.mean, 3)),
      `+${fixed(result.comparison.addedMeanLatencyMs, 3)} ms`,
      ...(vsPortkey ? [`Portkey +${fixed(vsPortkey.addedMeanLatencyMs, 3)} ms`] : []),
    ],
    [
      '  p50 / p99 (ms)',
      ...cells((target) => `${fixed(target.latency.latencyMs.p50, 3)} / ${fixed(target.latency.latencyMs.p99, 3)}`),
      `+${fixed(result.comparison.addedP50LatencyMs, 3)} ms (p50)`,
      ...(vsPortkey ? [''] : []),
    ],
    ['  requests/s', ...cells((target) => fixed(target.latency.requestsPerSecond, 1)), '', ...(vsPortkey ? [''] : [])],
    [
      `CPU µs per request, ${connections} connections`,
      ...cells((target) => String(target.throughput.cpuMicrosPerRequest.total)),
      '',
      ...(vsPortkey && portkey ? [`Portkey uses ×${fixed(portkey.throughput.cpuMicrosPerRequest.total / Math.max(1, gateway.throughput.cpuMicrosPerRequest.total), 2)}`] : []),
    ],
    [
      `  machine-wide (all processes), µs`,
      ...cells((target) => String(target.throughput.cpuMicrosPerRequest.machine ?? '')),
      `+${(gateway.throughput.cpuMicrosPerRequest.machine ?? 0) - (direct.throughput.cpuMicrosPerRequest.machine ?? 0)} µs added`,
      ...(vsPortkey && portkey ? [`Portkey +${(portkey.throughput.cpuMicrosPerRequest.machine ?? 0) - (direct.throughput.cpuMicrosPerRequest.machine ?? 0)} µs added`] : []),
    ],
    ['requests measured (+ warm-up)', ...cells(requestCount), '', ...(vsPortkey ? [''] : [])],
    ['non-2xx / errors', ...cells(failureCount), '', ...(vsPortkey ? [''] : [])],
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('   ').trimEnd();
  const rule = '-'.repeat(widths.reduce((sum, width) => sum + width, 0) + 3 * (widths.length - 1));
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

function requestCount(target: TargetResult): string {
  return `${target.throughput.totalRequests + target.latency.totalRequests} (+${target.warmup.totalRequests})`;
}

function failureCount(target: TargetResult): string {
  const non2xx = target.throughput.non2xx + target.latency.non2xx + target.warmup.non2xx;
  const errors = target.throughput.errors + target.latency.errors + target.warmup.errors;
  return `${non2xx} / ${errors}`;
}
