import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** Connections of the throughput runs. */
  connections: number;
  /** Seconds of each throughput run. */
  throughputDuration: number;
  /** Seconds of each single-connection latency run. */
  latencyDuration: number;
  /** Seconds of the warm-up before every measured run. */
  warmup: number;
  /** Rounds, alternating direct and gateway; the medians are reported (the machine is noisy). */
  rounds: number;
  /** Also measure Portkey's open-source gateway on the same simulator (installed on demand). */
  portkey: boolean;
  /** Lines of the batch scenario (issue 13); 0 skips it. */
  batchLines: number;
}

export const USAGE = `Usage: npm run bench -- [options]

  --duration <s>          seconds of each throughput run (default 6, or BENCH_DURATION)
  --latency-duration <s>  seconds of each 1-connection latency run (default: half of --duration, so 3)
  --connections <n>       connections of the throughput runs (default 32)
  --warmup <s>            seconds of warm-up before every measured run (default 1; 0 skips it)
  --rounds <n>            rounds, direct, gateway and Portkey alternating; medians reported (default 3)
  --no-portkey            skip Portkey's gateway (measured by default; installed on demand from npm)
  --batch-lines <n>       lines of the batch scenario: interactive chat p50/p99 with and without it (default 10000; 0 skips it)
  -h, --help              this text`;

function integer(value: string | undefined, name: string, min = 1): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min) throw new Error(`${name} must be an integer >= ${min}, got "${value}"`);
  return number;
}

/** Reads the CLI flags (and BENCH_DURATION); returns undefined when help was asked for. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      'latency-duration': { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      'no-portkey': { type: 'boolean' },
      'batch-lines': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  const throughputDuration = integer(values.duration, '--duration') ?? integer(env.BENCH_DURATION, 'BENCH_DURATION') ?? 6;
  return {
    connections: integer(values.connections, '--connections') ?? 32,
    throughputDuration,
    latencyDuration: integer(values['latency-duration'], '--latency-duration') ?? Math.max(1, Math.ceil(throughputDuration / 2)),
    warmup: integer(values.warmup, '--warmup', 0) ?? 1,
    rounds: integer(values.rounds, '--rounds') ?? 3,
    portkey: values['no-portkey'] !== true,
    batchLines: integer(values['batch-lines'], '--batch-lines', 0) ?? 10_000,
  };
}
