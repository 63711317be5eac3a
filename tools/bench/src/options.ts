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
  /** The stream scenario (issue 17): first token, CPU per chunk, 12-chunk streams/s. */
  streams: boolean;
  /** The adapter stream scenario (issue 29): CPU per chunk through the OpenAI, Bedrock and Gemini adapters. */
  adapterStreams: boolean;
  /** Concurrent slow streams of the concurrency scenario (issue 17); 0 skips it. */
  concurrencyStreams: number;
  /** Seconds each of those streams lasts (the simulator trickles its chunks). */
  concurrencySeconds: number;
  /** Clients that stop reading in the concurrency scenario's second phase; 0 skips that phase. */
  stalledClients: number;
  /** Tokens each stalled client asks for. */
  stalledTokens: number;
  /** Generation rows of the generations scenario (issue 31); 0 skips it. */
  generationRows: number;
  /** Cold loads of the console's overview in Chromium (issue 32); 0 skips the console scenario. */
  consoleLoads: number;
}

export const USAGE = `Usage: npm run bench -- [options]

  --duration <s>          seconds of each throughput run (default 6, or BENCH_DURATION)
  --latency-duration <s>  seconds of each 1-connection latency run (default: half of --duration, so 3)
  --connections <n>       connections of the throughput runs (default 32)
  --warmup <s>            seconds of warm-up before every measured run (default 1; 0 skips it)
  --rounds <n>            rounds, direct, gateway and Portkey alternating; medians reported (default 3)
  --no-portkey            skip Portkey's gateway (measured by default; installed on demand from npm)
  --batch-lines <n>       lines of the batch scenario: interactive chat p50/p99 with and without it (default 10000; 0 skips it)
  --no-streams            skip the stream scenario (first token added, CPU per chunk, 12-chunk streams/s)
  --no-adapter-streams    skip the adapter stream scenario (CPU per chunk through the OpenAI, Bedrock and Gemini adapters)
  --concurrency-streams <n>  concurrent slow streams held by the gateway (default 2000; 0 skips the concurrency scenario)
  --concurrency-seconds <s>  how long each slow stream lasts (default 60)
  --stalled-clients <n>   clients that stop reading in the concurrency scenario's second phase (default 200; 0 skips it)
  --stalled-tokens <n>    tokens each stalled client asks for (default 100000, about 10 MB: past the loopback buffers and the gateway's own bounds)
  --generation-rows <n>   generation rows seeded for the list and analytics p95 and the disk per million rows (default 0: skipped; the goal is stated at 10000000)
  --console-loads <n>     cold loads of the console's overview in Chromium, median against the 2 s goal (default 5; 0 skips it)
  -h, --help              this text

A quick run: npm run bench -- --rounds 1 --batch-lines 0 --concurrency-streams 200 --concurrency-seconds 5`;

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
      'no-streams': { type: 'boolean' },
      'no-adapter-streams': { type: 'boolean' },
      'concurrency-streams': { type: 'string' },
      'concurrency-seconds': { type: 'string' },
      'stalled-clients': { type: 'string' },
      'stalled-tokens': { type: 'string' },
      'generation-rows': { type: 'string' },
      'console-loads': { type: 'string' },
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
    streams: values['no-streams'] !== true,
    adapterStreams: values['no-adapter-streams'] !== true,
    concurrencyStreams: integer(values['concurrency-streams'], '--concurrency-streams', 0) ?? 2_000,
    concurrencySeconds: integer(values['concurrency-seconds'], '--concurrency-seconds') ?? 60,
    stalledClients: integer(values['stalled-clients'], '--stalled-clients', 0) ?? 200,
    stalledTokens: integer(values['stalled-tokens'], '--stalled-tokens') ?? 100_000,
    generationRows: integer(values['generation-rows'], '--generation-rows', 0) ?? 0,
    consoleLoads: integer(values['console-loads'], '--console-loads', 0) ?? 5,
  };
}
