import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADAPTER_STREAM_MODELS, LONG_REPLY_DIRECTIVE } from './adapter-stream-scenario.ts';
import { atMost, below, holds, type Goal } from './goals.ts';
import { round } from './measure.ts';
import { ProcessSampler, type ProcessSampleSummary } from './process-samples.ts';
import { summarize, type Summary } from './stats.ts';
import { complete, stallOnce, streamOnce, streamPool, type StreamOutcome, type StreamTarget } from './stream-client.ts';

/*
 * Many concurrent slow streams held by one gateway and one inference replica (issue 17), then
 * the same with clients that stop reading among them (bounded buffers).
 */

/** Issue 17's concurrency goals; the readers' slowdown bound is the bench's own. */
export const CONCURRENCY_GOALS = { rssMB: 300, eventLoopLagP99Ms: 50, readerP99Slowdown: 0.05 } as const;

/** The gateway model of the slow streams, added to the bench stack's catalog. */
export const SLOW_MODEL = 'sim/bench-slow';
/** Tokens of a slow reply: 19 content chunks of 3 tokens. */
export const SLOW_REPLY_TOKENS = 57;

/**
 * The simulator's pause between frames so a slow stream lasts `seconds`: it sends the role
 * chunk, ceil(tokens / 3) content chunks, the finish chunk, the usage chunk (inference always
 * asks for usage) and [DONE], with the pause between consecutive frames.
 */
export function chunkDelayMs(seconds: number, replyTokens = SLOW_REPLY_TOKENS): number {
  const frames = 1 + Math.ceil(replyTokens / 3) + 1 + 1 + 1;
  return Math.round((seconds * 1000) / (frames - 1));
}

export function slowUpstreamModel(seconds: number): string {
  return `gpt-4o-mini;chunk-delay=${chunkDelayMs(seconds)};reply-tokens=${SLOW_REPLY_TOKENS}`;
}

/** Inference's UPSTREAM_CONNECTIONS for `streams` at once (its default 256 at least, its maximum 4096 at most). */
export function upstreamConnections(streams: number): number {
  return Math.min(4096, Math.max(256, streams + 64));
}

interface CatalogModel {
  id: string;
  listed?: boolean;
  name: string;
  endpoints: Array<{ provider: string; upstreamModel: string }>;
}

/**
 * The stalled clients' model: the catalog's firehose with the simulator's longest reply (100,000
 * tokens, about 10 MB of SSE), so `--stalled-tokens` can ask for more than the loopback socket
 * buffers hold and the gateway's own bounds are reached.
 */
export const FIREHOSE_MODEL = 'sim/bench-firehose';
const FIREHOSE_REPLY_TOKENS = 100_000;

/**
 * The stream scenario's long reply: 180 tokens, 60 content chunks, so 64 `data:`
 * events against the short reply's 12; the difference gives the marginal CPU of a chunk.
 */
export const LONG_MODEL = 'sim/bench-long';
export const LONG_UPSTREAM_MODEL = 'gpt-4o-mini;reply-tokens=180';

/** An unlisted copy of the catalog's `templateId` under `id`, every endpoint sending `upstreamModel`. */
function copyOf(catalog: { models: CatalogModel[] }, templateId: string, id: string, name: string, upstreamModel: string): CatalogModel {
  const template = catalog.models.find((entry) => entry.id === templateId);
  if (!template) throw new Error(`the catalog has no ${templateId} to copy`);
  return { ...template, id, listed: false, name, endpoints: template.endpoints.map((endpoint) => ({ ...endpoint, upstreamModel })) };
}

/**
 * The bench's own catalog file: its slow model (a copy of the dev catalog's `sim/gpt-4o-mini-slow` with its own upstream),
 * its firehose (a copy of `sim/gpt-4o-mini-firehose` with the longest reply) and its long replies (copies of `sim/gpt-4o-mini`,
 * `sim/bedrock-claude` and `sim/gemini-2.5-flash`).
 * Loaded after the dev catalog, whose simulator providers it uses.
 */
export function benchModels(devCatalog: { models: CatalogModel[] }, seconds: number): { providers: []; models: CatalogModel[] } {
  return {
    providers: [],
    models: [
      copyOf(
        devCatalog,
        'sim/gpt-4o-mini-slow',
        SLOW_MODEL,
        `Simulated GPT-4o mini streaming a reply over about ${seconds} s (bench concurrency scenario)`,
        slowUpstreamModel(seconds),
      ),
      copyOf(
        devCatalog,
        'sim/gpt-4o-mini-firehose',
        FIREHOSE_MODEL,
        `Simulated GPT-4o mini streaming ${FIREHOSE_REPLY_TOKENS.toLocaleString('en')} tokens as fast as it can (bench stalled clients)`,
        `gpt-4o-mini;reply-tokens=${FIREHOSE_REPLY_TOKENS}`,
      ),
      copyOf(
        devCatalog,
        'sim/gpt-4o-mini',
        LONG_MODEL,
        'Simulated GPT-4o mini with a 180-token reply (bench marginal CPU per chunk)',
        LONG_UPSTREAM_MODEL,
      ),
      ...(['bedrock', 'gemini'] as const).map((adapter) => {
        const { template, long, upstream } = ADAPTER_STREAM_MODELS[adapter];
        return copyOf(
          devCatalog,
          template,
          long,
          `${template} with a 180-token reply (bench adapter streams)`,
          `${upstream};${LONG_REPLY_DIRECTIVE}`,
        );
      }),
    ],
  };
}

/** Writes the bench's catalog file into `dir`; returns inference's MODEL_CATALOG_PATHS (the dev stack's files, then it). */
export function writeBenchCatalog(devCatalogPaths: readonly string[], dir: string, seconds: number): string {
  const devCatalog = JSON.parse(readFileSync(devCatalogPaths.at(-1)!, 'utf8')) as { models: CatalogModel[] };
  const path = join(dir, 'bench-catalog.json');
  writeFileSync(path, `${JSON.stringify(benchModels(devCatalog, seconds), null, 2)}\n`);
  return [...devCatalogPaths, path].join(',');
}

export interface ConcurrencyOptions {
  streams: number;
  seconds: number;
  stalledClients: number;
  /** Tokens each stalled client asks for (max_tokens on the firehose model). */
  stalledTokens: number;
}

export interface PhaseResult {
  streams: number;
  /** Streams that ended with [DONE] after a 200 and no error chunk. */
  complete: number;
  errors: number;
  /** Why some were not complete (the first few). */
  failures: string[];
  /** Whole-stream time of the complete ones, ms (start to [DONE]). */
  completionMs: Summary;
  firstTokenMs: Summary;
  wallSeconds: number;
  gateway: ProcessSampleSummary;
  inference: ProcessSampleSummary;
}

export interface ConcurrencyScenarioResult {
  options: ConcurrencyOptions & { chunkDelayMs: number; model: string };
  /** Phase 1: `streams` slow streams, every client reading. */
  readers: PhaseResult;
  /** Phase 2: the same, while `stalledClients` clients read nothing. */
  withStalled?: PhaseResult & {
    /**
     * When read again after the readers finished: still ended with [DONE], cut by the gateway
     * (stall timeout, slow_consumer), still running.
     */
    stalled: StalledReport & { clients: number; model: string };
    /** Phase-2 readers' completion time − phase 1's, ms. */
    readerSlowdownMs: { p50: number; p99: number };
  };
  goals: Goal[];
  problems: string[];
}

/** The stalled clients of phase 2, once the readers finished and each read again. */
interface StalledReport {
  headsOk: number;
  complete: number;
  cut: number;
  stillRunning: number;
  /** KiB each stalled client's socket had read (head included) while it read nothing. */
  bytesReadKiB: Summary;
}

const step = (text: string) => console.log(`==> ${text}`);

export interface ConcurrencyProcesses {
  gateway: { pid: number; metricsUrl: string | undefined };
  inference: { pid: number; metricsUrl: string | undefined };
}

function failureOf(outcome: StreamOutcome): string {
  return `status ${outcome.status}, ${outcome.events} events, [DONE] ${outcome.done}, ${outcome.errorEvents} error chunks${outcome.failure ? `, ${outcome.failure}` : ''}`;
}

async function phase(
  reader: StreamTarget,
  streams: number,
  processes: ConcurrencyProcesses,
  signal: AbortSignal,
  stalled?: { target: StreamTarget; clients: number },
): Promise<{ result: PhaseResult; stalledReport?: StalledReport }> {
  const gatewaySampler = await ProcessSampler.start(processes.gateway.pid, processes.gateway.metricsUrl);
  const inferenceSampler = await ProcessSampler.start(processes.inference.pid, processes.inference.metricsUrl);
  const stalledStreams = stalled ? Array.from({ length: stalled.clients }, () => stallOnce(stalled.target)) : [];
  // The stalled clients have their heads (their streams are running) before the readers start.
  const heads = await Promise.all(stalledStreams.map((entry) => entry.status));
  const pool = streamPool(reader, streams);
  const start = performance.now();
  const ticker = setInterval(() => console.log(`    ${Math.round((performance.now() - start) / 1000)} s`), 15_000);
  let outcomes: StreamOutcome[];
  try {
    outcomes = await Promise.all(Array.from({ length: streams }, () => streamOnce(pool, reader, signal)));
  } finally {
    clearInterval(ticker);
  }
  const wallSeconds = round((performance.now() - start) / 1000);
  const gateway = await gatewaySampler.stop();
  const inference = await inferenceSampler.stop();
  // What each stalled client had taken off its socket: a few KiB past the head shows it really stopped reading.
  const stalledBytesRead = stalledStreams.map((entry) => entry.bytesRead());
  const released = await Promise.all(stalledStreams.map((entry) => entry.release()));
  const count = (end: string) => released.filter((entry) => entry === end).length;
  await pool.close();
  signal.throwIfAborted();
  const good = outcomes.filter(complete);
  const bad = outcomes.filter((outcome) => !complete(outcome));
  return {
    result: {
      streams,
      complete: good.length,
      errors: bad.length,
      failures: [...new Set(bad.map(failureOf))].slice(0, 5),
      completionMs: summarize(
        good.map((outcome) => outcome.totalMs),
        1,
      ),
      firstTokenMs: summarize(
        good.map((outcome) => outcome.firstDataMs ?? 0),
        1,
      ),
      wallSeconds,
      gateway,
      inference,
    },
    ...(stalled
      ? {
          stalledReport: {
            headsOk: heads.filter((status) => status === 200).length,
            complete: count('complete'),
            cut: count('cut'),
            stillRunning: count('still-running'),
            bytesReadKiB: summarize(
              stalledBytesRead.map((bytes) => bytes / 1024),
              1,
            ),
          },
        }
      : {}),
  };
}

function describePhase(result: PhaseResult): string {
  return (
    `${result.complete}/${result.streams} complete, ${result.errors} errors, completion p50/p99 ${(result.completionMs.p50 / 1000).toFixed(2)}/${(result.completionMs.p99 / 1000).toFixed(2)} s; ` +
    `gateway RSS max ${result.gateway.rssMaxMB} MB, loop lag p99 ${result.gateway.eventLoopLagP99Ms ?? '–'} ms (max ${result.gateway.eventLoopLagMaxMs ?? '–'}); inference RSS max ${result.inference.rssMaxMB} MB`
  );
}

export async function concurrencyScenario(
  baseUrl: string,
  apiKey: string,
  processes: ConcurrencyProcesses,
  options: ConcurrencyOptions,
  signal: AbortSignal,
): Promise<ConcurrencyScenarioResult> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
  const reader: StreamTarget = {
    name: 'slow',
    label: `${SLOW_MODEL} through the gateway`,
    url: `${baseUrl}/chat/completions`,
    headers,
    body: JSON.stringify({
      model: SLOW_MODEL,
      messages: [{ role: 'user', content: 'Say hello slowly' }],
      stream: true,
      stream_options: { include_usage: true },
    }),
  };
  const problems: string[] = [];
  step(
    `concurrency, phase 1: ${options.streams.toLocaleString('en')} concurrent streams of about ${options.seconds} s (one chunk every ${chunkDelayMs(options.seconds)} ms), every client reading`,
  );
  const readers = (await phase(reader, options.streams, processes, signal)).result;
  console.log(`    ${describePhase(readers)}`);
  if (readers.errors > 0)
    problems.push(`concurrency phase 1: ${readers.errors} of ${readers.streams} streams incomplete (${readers.failures.join('; ')})`);

  let withStalled: ConcurrencyScenarioResult['withStalled'];
  if (options.stalledClients > 0) {
    const stalledModel = FIREHOSE_MODEL;
    const stalledTarget: StreamTarget = {
      name: 'stalled',
      label: `${stalledModel} read by nobody`,
      url: `${baseUrl}/chat/completions`,
      headers,
      body: JSON.stringify({
        model: stalledModel,
        messages: [{ role: 'user', content: 'Say a lot' }],
        stream: true,
        max_tokens: options.stalledTokens,
      }),
    };
    step(
      `concurrency, phase 2: ${options.stalledClients} clients stop reading streams of ${options.stalledTokens.toLocaleString('en')} tokens (${stalledModel}), ` +
        `then ${options.streams.toLocaleString('en')} readers as in phase 1`,
    );
    const { result, stalledReport } = await phase(reader, options.streams, processes, signal, {
      target: stalledTarget,
      clients: options.stalledClients,
    });
    console.log(
      `    ${describePhase(result)}; stalled: ${stalledReport!.headsOk} answered 200, read again: ${stalledReport!.complete} complete, ${stalledReport!.cut} cut by the gateway, ${stalledReport!.stillRunning} still running; ` +
        `each had read ${stalledReport!.bytesReadKiB.p50} KiB (max ${stalledReport!.bytesReadKiB.max}) off its socket`,
    );
    if (result.errors > 0)
      problems.push(
        `concurrency phase 2: ${result.errors} of ${result.streams} reading streams incomplete (${result.failures.join('; ')})`,
      );
    withStalled = {
      ...result,
      stalled: { clients: options.stalledClients, model: stalledModel, ...stalledReport! },
      readerSlowdownMs: {
        p50: round(result.completionMs.p50 - readers.completionMs.p50, 1),
        p99: round(result.completionMs.p99 - readers.completionMs.p99, 1),
      },
    };
  }
  return {
    options: { ...options, chunkDelayMs: chunkDelayMs(options.seconds), model: SLOW_MODEL },
    readers,
    ...(withStalled ? { withStalled } : {}),
    goals: concurrencyGoals(readers, withStalled),
    problems,
  };
}

/** Issue 17's concurrency goals (phase 1) and the readers' slowdown in phase 2. */
export function concurrencyGoals(readers: PhaseResult, withStalled?: Pick<PhaseResult, 'completionMs' | 'errors'>): Goal[] {
  const streams = readers.streams.toLocaleString('en');
  return [
    holds(
      `${streams} slow streams: zero errors, every one ended with [DONE]`,
      readers.errors === 0 && readers.complete === readers.streams,
      'yes',
    ),
    below(`${streams} slow streams: gateway RSS max`, readers.gateway.rssMaxMB, CONCURRENCY_GOALS.rssMB, 'MB'),
    below(
      `${streams} slow streams: gateway event-loop lag p99`,
      readers.gateway.eventLoopLagP99Ms,
      CONCURRENCY_GOALS.eventLoopLagP99Ms,
      'ms',
    ),
    readersAmongStalled(readers, withStalled),
  ];
}

/** Phase 2's readers: their completion p99 against phase 1's; a reader that failed fails it (it was slowed to nothing). */
function readersAmongStalled(readers: PhaseResult, withStalled?: Pick<PhaseResult, 'completionMs' | 'errors'>): Goal {
  const goal = atMost(
    'readers among stalled clients: every one complete, completion p99 vs phase 1',
    withStalled ? round((withStalled.completionMs.p99 / Math.max(1e-9, readers.completionMs.p99) - 1) * 100, 2) : undefined,
    CONCURRENCY_GOALS.readerP99Slowdown * 100,
    '% slower',
  );
  return withStalled && withStalled.errors > 0 ? { ...goal, met: false } : goal;
}
