import type { NamedProcess } from './cpu.ts';
import { CpuMeter } from './cpu.ts';
import { atLeast, atMost, type Goal } from './goals.ts';
import { round } from './measure.ts';
import { median, summarize, type Summary } from './stats.ts';
import { complete, streamLoad, streamOnce, streamPool, type StreamOutcome, type StreamTarget } from './stream-client.ts';

/*
 * Streamed chat completions (issue 17): the time to first token the gateway adds at one
 * connection, the CPU it adds per streamed chunk, and whole 12-chunk streams per second at
 * `connections` connections, for the simulator direct, the gateway and Portkey.
 */

/** Issue 17's stream goals. */
export const STREAM_GOALS = { addedTtftMs: 1, addedCpuMicrosPerChunk: 15, portkeyMultiple: 1.5 } as const;

export interface StreamTargetSpec extends StreamTarget {
  name: 'direct' | 'gateway' | 'portkey';
  /** Server-side processes of the path, for the CPU figures. */
  processes: NamedProcess[];
  /**
   * The same request for a long reply (`LONG_STREAM_EVENTS`-odd events): direct and gateway
   * only, for the marginal CPU per chunk.
   */
  longBody?: string;
}

export interface StreamThroughput {
  connections: number;
  seconds: number;
  streamsPerSecond: number;
  streams: number;
  /** Streams that were not a 200 ending in [DONE] without an error chunk. */
  failed: number;
  /** Why those failed: count per reason (status, transport failure, error chunk), so a run says it. */
  failures?: Record<string, number>;
  /** `data:` events per stream ([DONE] and the usage chunk included): the "12" of 12-chunk streams. */
  chunksPerStream: number;
  /** Whole-stream time, ms. */
  streamMs: Summary;
  /** CPU µs per stream, per process and machine-wide (as the chat rows, `CpuMeter`). */
  cpuMicrosPerStream: Record<string, number>;
  /** The same ÷ chunksPerStream. */
  cpuMicrosPerChunk: { total: number; machine: number };
  /** Read and write system calls per stream of the same processes: a count the machine's speed hardly moves. */
  syscallsPerStream: Record<string, { read: number; write: number }>;
}

export interface StreamTargetResult {
  label: string;
  url: string;
  /** One connection, sequential streams: first `data:` byte and whole stream, ms (every round's samples). */
  firstToken: Summary;
  wholeStream: Summary;
  /** Per round; `throughput` is the round with the median streams/s. */
  rounds: StreamThroughput[];
  throughput: StreamThroughput;
  /** Per round, the long-reply run at the same connections (direct and gateway only). */
  longRounds?: StreamThroughput[];
}

export interface StreamScenarioResult {
  /** The models asked for (the same upstream stream: role, content, finish and usage chunks, [DONE]). */
  model: { direct: string; gateway: string };
  targets: { direct: StreamTargetResult; gateway: StreamTargetResult; portkey?: StreamTargetResult };
  comparison: {
    /** gateway − direct first-token time at 1 connection, ms. */
    addedFirstTokenMs: { mean: number; p50: number; p99: number };
    /**
     * (gateway − direct) CPU per stream ÷ chunks per stream, µs; `machine` is the whole machine's.
     * The per-stream work (auth, limits, usage, ledger) is in it, spread over 12 chunks.
     */
    addedCpuMicrosPerChunk: { total: number; machine: number };
    /**
     * What one more chunk costs the gateway path, machine-wide µs: per round,
     * ((gateway long − gateway short) − (direct long − direct short)) CPU per stream ÷ (long − short
     * events); the median of the rounds. Absent when no round gave a positive figure (noise larger
     * than the effect) or the long runs were not made.
     */
    marginalCpuMicrosPerChunk?: number;
    /** gateway streams/s ÷ Portkey's, at `connections` connections. */
    gatewayMultipleOfPortkey?: number;
  };
  goals: Goal[];
  problems: string[];
  /** Why Portkey's streams were not measured, when they were not. */
  portkeySkipped?: string;
}

export interface StreamScenarioOptions {
  connections: number;
  /** Seconds of each throughput run, of each 1-connection run, of each warm-up. */
  throughputSeconds: number;
  latencySeconds: number;
  warmupSeconds: number;
  rounds: number;
}

const step = (text: string) => console.log(`==> ${text}`);

/** Sequential streams on one connection for `seconds`. */
async function oneConnection(target: StreamTarget, seconds: number, signal: AbortSignal): Promise<StreamOutcome[]> {
  const pool = streamPool(target, 1);
  const outcomes: StreamOutcome[] = [];
  const until = performance.now() + seconds * 1000;
  try {
    while (performance.now() < until && !signal.aborted) outcomes.push(await streamOnce(pool, target, signal));
  } finally {
    await pool.close();
  }
  signal.throwIfAborted();
  return outcomes;
}

function describeOutcome(outcome: StreamOutcome): string {
  return `status ${outcome.status}, ${outcome.events} events, [DONE] ${outcome.done}, ${outcome.errorEvents} error chunks${outcome.failure ? `, ${outcome.failure}` : ''}`;
}

function describeFailures(what: string, outcomes: StreamOutcome[]): string | undefined {
  const failed = outcomes.filter((outcome) => !complete(outcome));
  if (failed.length === 0) return undefined;
  const example = failed[0]!;
  return `${what}: ${failed.length} of ${outcomes.length} streams incomplete (e.g. status ${example.status}, [DONE] ${example.done}, ${example.errorEvents} error chunks${example.failure ? `, ${example.failure}` : ''})`;
}

/** Ids differ per request: without them, one reason is one key. */
const withoutIds = (text: string) =>
  text.replace(/"(?:request_id|id|created)":(?:"[^"]*"|\d+),/g, '').replace(/,?"(?:request_id|id|created)":(?:"[^"]*"|\d+)/g, '');

/** Failed outcomes counted by reason: the status's body, the transport failure or the error chunk. */
export function failureReasons(outcomes: StreamOutcome[]): Record<string, number> {
  const reasons: Record<string, number> = {};
  for (const outcome of outcomes.filter((candidate) => !complete(candidate))) {
    const reason =
      (outcome.body && withoutIds(outcome.body)) ??
      (outcome.failure
        ? `transport: ${outcome.failure} after ${outcome.events} events`
        : outcome.firstError
          ? `error chunk: ${withoutIds(outcome.firstError)}`
          : `ended without [DONE] after ${outcome.events} events`);
    reasons[reason] = (reasons[reason] ?? 0) + 1;
  }
  return reasons;
}

export async function throughputRun(
  target: StreamTarget & { processes: NamedProcess[] },
  options: Pick<StreamScenarioOptions, 'connections' | 'throughputSeconds'>,
  signal: AbortSignal,
): Promise<StreamThroughput> {
  const cpu = new CpuMeter(target.processes);
  const { outcomes, seconds } = await streamLoad(target, options.connections, options.throughputSeconds, signal);
  const good = outcomes.filter(complete);
  const cpuMicrosPerStream = cpu.microsPerRequest(good.length);
  const chunksPerStream = median(good.map((outcome) => outcome.events));
  const perChunk = (micros: number | undefined) => (chunksPerStream > 0 ? round((micros ?? 0) / chunksPerStream, 1) : 0);
  return {
    connections: options.connections,
    seconds: round(seconds),
    streamsPerSecond: round(good.length / seconds, 1),
    streams: outcomes.length,
    failed: outcomes.length - good.length,
    ...(good.length < outcomes.length ? { failures: failureReasons(outcomes) } : {}),
    chunksPerStream,
    streamMs: summarize(good.map((outcome) => outcome.totalMs)),
    cpuMicrosPerStream,
    cpuMicrosPerChunk: { total: perChunk(cpuMicrosPerStream.total), machine: perChunk(cpuMicrosPerStream.machine) },
    syscallsPerStream: cpu.syscallsPerRequest(good.length),
  };
}

/**
 * Rounds alternating the targets (a slow spell of the shared machine hits each alike): per
 * round and target, a warm-up, `latencySeconds` of sequential streams on one connection, then
 * `throughputSeconds` at `connections` connections.
 */
export async function streamScenario(
  requested: StreamTargetSpec[],
  model: StreamScenarioResult['model'],
  options: StreamScenarioOptions,
  signal: AbortSignal,
): Promise<StreamScenarioResult> {
  const problems: string[] = [];
  // One stream each first. Ours must work; Portkey's failure is Portkey's (with a newer
  // @hono/node-server than the pinned one, 1.15.2 answers 500 to streams on Node 24: TypeError:
  // immutable, Portkey-AI/gateway#1389), so it is left out, with why.
  const targets: StreamTargetSpec[] = [];
  let portkeySkipped: string | undefined;
  for (const target of requested) {
    const pool = streamPool(target, 1);
    const outcome = await streamOnce(pool, target, signal).finally(() => pool.close());
    if (complete(outcome)) targets.push(target);
    else if (target.name === 'portkey') {
      portkeySkipped = `${target.label} did not stream: ${outcome.body ?? describeOutcome(outcome)}`;
      console.warn(`bench: Portkey's streams not measured: ${portkeySkipped}`);
    } else throw new Error(`${target.label} did not stream: ${outcome.body ?? describeOutcome(outcome)}`);
  }
  const samples = new Map<string, StreamOutcome[]>(targets.map((target) => [target.name, []]));
  const runs = new Map<string, StreamThroughput[]>(targets.map((target) => [target.name, []]));
  const longRuns = new Map<string, StreamThroughput[]>(targets.map((target) => [target.name, []]));
  for (let index = 1; index <= options.rounds; index += 1) {
    for (const target of targets) {
      step(
        `streams, round ${index} of ${options.rounds}: ${target.label}, 1 connection ${options.latencySeconds} s, then ${options.connections} connections ${options.throughputSeconds} s`,
      );
      if (options.warmupSeconds > 0) {
        const warmup = await oneConnection(target, options.warmupSeconds, signal);
        const problem = describeFailures(`${target.label} streams, warm-up`, warmup);
        if (problem) problems.push(problem);
      }
      const sequential = await oneConnection(target, options.latencySeconds, signal);
      const problem = describeFailures(`${target.label} streams, 1 connection`, sequential);
      if (problem) problems.push(problem);
      samples.get(target.name)!.push(...sequential.filter(complete));
      const run = await throughputRun(target, options, signal);
      if (run.failed > 0)
        problems.push(`${target.label} streams, ${options.connections} connections: ${run.failed} of ${run.streams} streams incomplete`);
      runs.get(target.name)!.push(run);
      console.log(
        `    ${run.streamsPerSecond} streams/s (${run.chunksPerStream} chunks each), first token p50 ${summarize(sequential.filter(complete).map((outcome) => outcome.firstDataMs ?? 0)).p50} ms at 1 connection, ` +
          `CPU ${run.cpuMicrosPerChunk.total} µs/chunk (machine ${run.cpuMicrosPerChunk.machine})`,
      );
      if (target.longBody) {
        const long = await throughputRun({ ...target, body: target.longBody }, options, signal);
        if (long.failed > 0)
          problems.push(
            `${target.label} long streams, ${options.connections} connections: ${long.failed} of ${long.streams} streams incomplete`,
          );
        longRuns.get(target.name)!.push(long);
        console.log(
          `    long replies: ${long.streamsPerSecond} streams/s (${long.chunksPerStream} chunks each), CPU ${long.cpuMicrosPerStream.machine ?? 0} µs/stream machine-wide`,
        );
      }
    }
  }
  const results = Object.fromEntries(
    targets.map((target) => {
      const outcomes = samples.get(target.name)!;
      const rounds = runs.get(target.name)!;
      const result: StreamTargetResult = {
        label: target.label,
        url: target.url,
        firstToken: summarize(outcomes.map((outcome) => outcome.firstDataMs ?? 0)),
        wholeStream: summarize(outcomes.map((outcome) => outcome.totalMs)),
        rounds,
        throughput: [...rounds].sort((a, b) => a.streamsPerSecond - b.streamsPerSecond)[Math.floor(rounds.length / 2)]!,
        ...(longRuns.get(target.name)!.length > 0 ? { longRounds: longRuns.get(target.name)! } : {}),
      };
      return [target.name, result];
    }),
  ) as StreamScenarioResult['targets'];
  const comparison = compareStreams(results);
  return {
    model,
    targets: results,
    comparison,
    goals: streamGoals(comparison),
    problems,
    ...(portkeySkipped ? { portkeySkipped } : {}),
  };
}

/** What the gateway adds over the simulator alone, and its rate against Portkey's. */
export function compareStreams(targets: StreamScenarioResult['targets']): StreamScenarioResult['comparison'] {
  const { direct, gateway, portkey } = targets;
  // CPU per chunk from the median-throughput rounds' per-stream CPU, so the chunk count is the gateway's.
  const chunks = gateway.throughput.chunksPerStream || direct.throughput.chunksPerStream;
  const added = (key: 'total' | 'machine') =>
    chunks > 0
      ? round(((gateway.throughput.cpuMicrosPerStream[key] ?? 0) - (direct.throughput.cpuMicrosPerStream[key] ?? 0)) / chunks, 1)
      : 0;
  return {
    addedFirstTokenMs: {
      mean: round(gateway.firstToken.mean - direct.firstToken.mean, 3),
      p50: round(gateway.firstToken.p50 - direct.firstToken.p50, 3),
      p99: round(gateway.firstToken.p99 - direct.firstToken.p99, 3),
    },
    addedCpuMicrosPerChunk: { total: added('total'), machine: added('machine') },
    ...optional('marginalCpuMicrosPerChunk', marginalCpuPerChunk(direct, gateway)),
    ...(portkey && portkey.throughput.streamsPerSecond > 0
      ? { gatewayMultipleOfPortkey: round(gateway.throughput.streamsPerSecond / Math.max(1e-9, portkey.throughput.streamsPerSecond), 2) }
      : {}),
  };
}

const optional = <K extends string>(key: K, value: number | undefined) =>
  value === undefined ? {} : ({ [key]: value } as Record<K, number>);

/**
 * The marginal machine-wide CPU of one more chunk through the gateway: per round, the
 * gateway's extra CPU for the long reply over the short one, less the simulator's and the
 * client's own extra (the direct path's), over the extra events; the median of the rounds that
 * gave a positive figure (a negative one is noise larger than the effect, not a free chunk).
 */
export function marginalCpuPerChunk(direct: StreamTargetResult, gateway: StreamTargetResult): number | undefined {
  const figures: number[] = [];
  const rounds = Math.min(direct.rounds.length, gateway.rounds.length, direct.longRounds?.length ?? 0, gateway.longRounds?.length ?? 0);
  for (let index = 0; index < rounds; index += 1) {
    const [shortDirect, shortGateway] = [direct.rounds[index]!, gateway.rounds[index]!];
    const [longDirect, longGateway] = [direct.longRounds![index]!, gateway.longRounds![index]!];
    const extraEvents = longGateway.chunksPerStream - shortGateway.chunksPerStream;
    if (extraEvents <= 0) continue;
    const machine = (run: StreamThroughput) => run.cpuMicrosPerStream.machine ?? 0;
    const figure = (machine(longGateway) - machine(shortGateway) - (machine(longDirect) - machine(shortDirect))) / extraEvents;
    if (figure > 0) figures.push(figure);
  }
  return figures.length > 0 ? round(median(figures), 1) : undefined;
}

/** Issue 17's stream goals against the comparison (machine-wide CPU, as the issue counts it). */
export function streamGoals(comparison: StreamScenarioResult['comparison']): Goal[] {
  return [
    atMost('time to first token added (mean, 1 connection)', comparison.addedFirstTokenMs.mean, STREAM_GOALS.addedTtftMs, 'ms'),
    atMost(
      'CPU added per streamed chunk, marginal (machine-wide)',
      comparison.marginalCpuMicrosPerChunk,
      STREAM_GOALS.addedCpuMicrosPerChunk,
      'µs',
    ),
    atLeast('12-chunk streams/s, gateway ÷ Portkey', comparison.gatewayMultipleOfPortkey, STREAM_GOALS.portkeyMultiple, '×'),
  ];
}
