import { cpus, loadavg, totalmem } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions } from './options.ts';
import { round, type RunFigures, type Target } from './measure.ts';
import type { ConcurrencyScenarioResult, PhaseResult } from './concurrency-scenario.ts';
import { formatGoals, type Goal } from './goals.ts';
import type { StreamScenarioResult, StreamTargetResult } from './stream-scenario.ts';
import type { GenerationsScenarioResult } from './generations-scenario.ts';

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
  targets: {
    direct: TargetResult;
    gateway: TargetResult;
    responses: TargetResult;
    sign: TargetResult;
    portkey?: TargetResult;
    /** The gateway's chat request answered from the response cache (`cache-hits.ts`). */
    cached?: TargetResult;
  };
  /** Every round, in order. */
  rounds: {
    direct: TargetResult[];
    gateway: TargetResult[];
    responses: TargetResult[];
    sign: TargetResult[];
    portkey?: TargetResult[];
    cached?: TargetResult[];
  };
  /** Response-cache hits against a miss (issue 34): CPU per hit, the CPU a miss adds, their ratio. */
  cacheHits?: import('./cache-hits.ts').CacheHitsResult;
  comparison: Comparison & {
    /** `/v1/responses` against direct, and against `/v1/chat/completions` (what the Responses front door adds). */
    responses: Comparison & { versusChatCompletions: Comparison };
    /** The same figures for Portkey's gateway against direct, and ours against Portkey's. */
    portkey?: Comparison & {
      /** Our req/s ÷ Portkey's req/s at `connections` connections, from the median rounds of each. */
      gatewayThroughputMultiple: number;
      /** Issue 17's chat goals as ratios taken within each round, and their medians (`chat-goals.ts`). */
      paired: import('./chat-goals.ts').ChatVersusPortkey;
    };
  };
  /** Why Portkey was not measured, when it was not. */
  portkeySkipped?: string;
  /** The batch scenario (issue 13), unless skipped with --batch-lines 0. */
  batch?: import('./batch-scenario.ts').BatchScenarioResult;
  /** The stream scenario (issue 17), unless skipped with --no-streams. */
  streams?: StreamScenarioResult;
  /** CPU per streamed chunk through the OpenAI, Bedrock and Gemini adapters (issue 29), unless --no-adapter-streams. */
  adapterStreams?: import('./adapter-stream-scenario.ts').AdapterStreamScenarioResult;
  /** The concurrency scenario (issue 17), unless skipped with --concurrency-streams 0. */
  concurrency?: ConcurrencyScenarioResult;
  /** The list and analytics over seeded generation rows, and their disk (issue 31, `--generation-rows`). */
  generations?: GenerationsScenarioResult;
  /** Issue 32: the console overview's cold load in Chromium (`console-scenario.ts`, `--console-loads`). */
  console?: import('./console-scenario.ts').ConsoleScenarioResult;
  /**
   * Issue 17's goals, each with its figure and met / not met: chat against Portkey, then streams
   * and concurrency (also inside each scenario); the generations' and the console's after them.
   */
  goals?: Goal[];
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
    throughputRatio:
      direct.throughput.requestsPerSecond > 0 ? round(gateway.throughput.requestsPerSecond / direct.throughput.requestsPerSecond, 3) : 0,
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
    [
      '',
      'simulator direct',
      'through gateway',
      'gateway /v1/responses',
      'gateway daemon sign',
      ...(portkey ? ['through Portkey'] : []),
      'gateway vs direct',
      ...(vsPortkey ? ['gateway vs Portkey'] : []),
    ],
    [
      `requests/s, ${connections} connections`,
      ...cells((target) => fixed(target.throughput.requestsPerSecond, 1)),
      `×${fixed(result.comparison.throughputRatio, 3)}`,
      ...(vsPortkey ? [`×${fixed(vsPortkey.gatewayThroughputMultiple, 2)}`] : []),
    ],
    [
      `  latency mean / p99 (ms)`,
      ...cells((target) => `${fixed(target.throughput.latencyMs.mean, 2)} / ${fixed(target.throughput.latencyMs.p99, 2)}`),
      '',
      ...(vsPortkey ? [''] : []),
    ],
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
      ...(vsPortkey && portkey
        ? [
            `Portkey uses ×${fixed(portkey.throughput.cpuMicrosPerRequest.total / Math.max(1, gateway.throughput.cpuMicrosPerRequest.total), 2)}`,
          ]
        : []),
    ],
    [
      `  machine-wide (all processes), µs`,
      ...cells((target) => String(target.throughput.cpuMicrosPerRequest.machine ?? '')),
      `+${(gateway.throughput.cpuMicrosPerRequest.machine ?? 0) - (direct.throughput.cpuMicrosPerRequest.machine ?? 0)} µs added`,
      ...(vsPortkey && portkey
        ? [
            `Portkey +${(portkey.throughput.cpuMicrosPerRequest.machine ?? 0) - (direct.throughput.cpuMicrosPerRequest.machine ?? 0)} µs added`,
          ]
        : []),
    ],
    ['requests measured (+ warm-up)', ...cells(requestCount), '', ...(vsPortkey ? [''] : [])],
    ['non-2xx / errors', ...cells(failureCount), '', ...(vsPortkey ? [''] : [])],
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('   ')
      .trimEnd();
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

/** The stream scenario's figures, one line per target, then what the gateway adds, with the goals. */
export function formatStreams(result: StreamScenarioResult): string {
  const { direct, gateway, portkey } = result.targets;
  const row = (target: StreamTargetResult) => {
    const run = target.throughput;
    return (
      `  ${target.label.padEnd(28)} first token mean/p50/p99 ${fixed(target.firstToken.mean, 3)}/${fixed(target.firstToken.p50, 3)}/${fixed(target.firstToken.p99, 3)} ms, ` +
      `${fixed(run.streamsPerSecond, 1)} streams/s at ${run.connections} connections (${run.chunksPerStream} chunks each), ` +
      `CPU ${run.cpuMicrosPerStream.total ?? 0} µs/stream (machine ${run.cpuMicrosPerStream.machine ?? 0})`
    );
  };
  const { addedFirstTokenMs, addedCpuMicrosPerChunk, marginalCpuMicrosPerChunk, gatewayMultipleOfPortkey } = result.comparison;
  return [
    'Streams (stream: true, include_usage):',
    row(direct),
    row(gateway),
    ...(portkey ? [row(portkey)] : []),
    ...(result.portkeySkipped ? [`  Portkey not measured: ${result.portkeySkipped}`] : []),
    `  gateway adds: first token ${fixed(addedFirstTokenMs.mean, 3)} ms mean (p50 ${fixed(addedFirstTokenMs.p50, 3)}, p99 ${fixed(addedFirstTokenMs.p99, 3)}); ` +
      `CPU per chunk machine-wide: ${marginalCpuMicrosPerChunk ?? '–'} µs marginal (long − short reply), ` +
      `${addedCpuMicrosPerChunk.machine} µs with the per-stream work spread over ${gateway.throughput.chunksPerStream} chunks (${addedCpuMicrosPerChunk.total} µs in the named processes)` +
      (gatewayMultipleOfPortkey === undefined ? '' : `; ×${fixed(gatewayMultipleOfPortkey, 2)} Portkey's streams/s`),
    formatGoals(result.goals),
  ].join('\n');
}

/** The adapter stream scenario: per adapter, the marginal CPU of a chunk per process, and the goals. */
export function formatAdapterStreams(result: import('./adapter-stream-scenario.ts').AdapterStreamScenarioResult): string {
  const rows = Object.entries(result.adapters).map(([adapter, figures]) => {
    const cpu = figures.marginalCpuMicrosPerChunk;
    const chunks = figures.rounds.map((r) => `${r.short.chunksPerStream}/${r.long.chunksPerStream}`)[0] ?? '–';
    const multiple = result.multipleOfOpenAi[adapter as keyof typeof result.multipleOfOpenAi];
    return (
      `  ${adapter.padEnd(8)} ${String(cpu.gatewaySide ?? '–').padStart(6)} µs/chunk gateway + inference (api-gateway ${cpu['api-gateway'] ?? '–'}, ` +
      `inference ${cpu.inference ?? '–'}; simulator ${cpu['provider-simulator'] ?? '–'}; machine ${cpu.machine ?? '–'}), ${chunks} chunks` +
      (multiple === undefined ? '' : `, ×${fixed(multiple, 2)} OpenAI's`)
    );
  });
  return [
    'Adapter streams (marginal CPU of one more chunk, long − short reply, median of the rounds):',
    ...rows,
    formatGoals(result.goals),
  ].join('\n');
}

function phaseLine(name: string, phase: PhaseResult): string {
  return (
    `  ${name}: ${phase.complete}/${phase.streams} complete, ${phase.errors} errors; completion p50/p99 ${fixed(phase.completionMs.p50 / 1000, 2)}/${fixed(phase.completionMs.p99 / 1000, 2)} s, ` +
    `first token p99 ${fixed(phase.firstTokenMs.p99, 1)} ms; gateway RSS ${phase.gateway.rssStartMB} → max ${phase.gateway.rssMaxMB} MB, ` +
    `loop lag p99 ${phase.gateway.eventLoopLagP99Ms ?? '–'} ms (max ${phase.gateway.eventLoopLagMaxMs ?? '–'}); inference RSS max ${phase.inference.rssMaxMB} MB, lag p99 ${phase.inference.eventLoopLagP99Ms ?? '–'} ms`
  );
}

/** The concurrency scenario's two phases and its goals. */
export function formatConcurrency(result: ConcurrencyScenarioResult): string {
  const { options, readers, withStalled } = result;
  return [
    `Concurrency (${options.streams.toLocaleString('en')} streams of ~${options.seconds} s, a chunk every ${options.chunkDelayMs} ms, one gateway and one inference replica):`,
    phaseLine('every client reading', readers),
    ...(withStalled
      ? [
          phaseLine(`with ${withStalled.stalled.clients} stalled clients`, withStalled),
          `  stalled clients: ${withStalled.stalled.headsOk} answered 200, read again afterwards: ${withStalled.stalled.complete} complete, ${withStalled.stalled.cut} cut by the gateway, ${withStalled.stalled.stillRunning} still running; ` +
            `readers' completion ${withStalled.readerSlowdownMs.p50 >= 0 ? '+' : ''}${withStalled.readerSlowdownMs.p50} ms p50, ${withStalled.readerSlowdownMs.p99 >= 0 ? '+' : ''}${withStalled.readerSlowdownMs.p99} ms p99 against phase 1`,
        ]
      : []),
    formatGoals(result.goals),
  ].join('\n');
}
