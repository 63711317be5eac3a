import type { NamedProcess } from './cpu.ts';
import { atMost, type Goal } from './goals.ts';
import { round } from './measure.ts';
import { median } from './stats.ts';
import { complete, streamOnce, streamPool } from './stream-client.ts';
import { throughputRun, type StreamThroughput } from './stream-scenario.ts';

/*
 * CPU per streamed chunk of each upstream adapter (issue 29): the same streamed chat completion
 * through the gateway to an OpenAI-format, a Bedrock ConverseStream (AWS event stream) and a
 * Gemini streamGenerateContent (SSE) stand-in, a short and a long reply each. What one more
 * chunk costs the gateway and inference processes is the adapter's cost.
 */

/** Issue 29's goal: a Bedrock or Gemini chunk within 1.5× of an OpenAI one. */
export const ADAPTER_STREAM_GOALS = { multipleOfOpenAi: 1.5 } as const;

export type AdapterName = 'openai' | 'bedrock' | 'gemini';

/** The gateway models of each adapter: the dev catalog's and the bench catalog's 180-token copies. */
export const ADAPTER_STREAM_MODELS: Record<AdapterName, { short: string; long: string; template: string; upstream: string }> = {
  openai: { short: 'sim/gpt-4o-mini', long: 'sim/bench-long', template: 'sim/gpt-4o-mini', upstream: 'gpt-4o-mini' },
  bedrock: {
    short: 'sim/bedrock-claude',
    long: 'sim/bench-long-bedrock',
    template: 'sim/bedrock-claude',
    upstream: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  },
  gemini: { short: 'sim/gemini-2.5-flash', long: 'sim/bench-long-gemini', template: 'sim/gemini-2.5-flash', upstream: 'gemini-2.5-flash' },
};

/** The long reply's simulator directive (the same as the stream scenario's). */
export const LONG_REPLY_DIRECTIVE = 'reply-tokens=180';

/** The server-side processes of the gateway path whose per-chunk CPU is the adapter's. */
const GATEWAY_SIDE = ['api-gateway', 'inference'] as const;

export interface AdapterStreamResult {
  model: { short: string; long: string };
  /** Per round: the short and the long reply at `connections` connections. */
  rounds: Array<{ short: StreamThroughput; long: StreamThroughput }>;
  /**
   * What one more chunk costs, µs, per process (and `gatewaySide`: api-gateway + inference;
   * `machine`: the whole machine): per round (long − short CPU per stream) ÷ (long − short
   * events); the median of the rounds.
   */
  marginalCpuMicrosPerChunk: Record<string, number>;
}

export interface AdapterStreamScenarioResult {
  adapters: Partial<Record<AdapterName, AdapterStreamResult>>;
  /** Each adapter's gateway-side marginal CPU per chunk ÷ OpenAI's. */
  multipleOfOpenAi: Partial<Record<AdapterName, number>>;
  goals: Goal[];
  problems: string[];
}

/** Per-process marginal CPU per chunk of one round; undefined when the long reply had no more events. */
export function marginalOfRound(short: StreamThroughput, long: StreamThroughput): Record<string, number> | undefined {
  const extra = long.chunksPerStream - short.chunksPerStream;
  if (extra <= 0) return undefined;
  const names = new Set([...Object.keys(short.cpuMicrosPerStream), ...Object.keys(long.cpuMicrosPerStream)]);
  const figures: Record<string, number> = {};
  for (const name of names) figures[name] = ((long.cpuMicrosPerStream[name] ?? 0) - (short.cpuMicrosPerStream[name] ?? 0)) / extra;
  figures.gatewaySide = GATEWAY_SIDE.reduce((sum, name) => sum + (figures[name] ?? 0), 0);
  return figures;
}

/** The median over rounds of each process's marginal figure. */
export function marginalOfRounds(rounds: AdapterStreamResult['rounds']): Record<string, number> {
  const perRound = rounds.map(({ short, long }) => marginalOfRound(short, long)).filter((figures) => figures !== undefined);
  const names = new Set(perRound.flatMap((figures) => Object.keys(figures)));
  return Object.fromEntries([...names].map((name) => [name, round(median(perRound.map((figures) => figures[name] ?? 0)), 1)]));
}

export function adapterGoals(multiples: AdapterStreamScenarioResult['multipleOfOpenAi']): Goal[] {
  return (['bedrock', 'gemini'] as const).map((adapter) =>
    atMost(
      `${adapter === 'bedrock' ? 'Bedrock (event stream)' : 'Gemini (SSE)'} CPU per chunk ÷ OpenAI's (gateway + inference, marginal)`,
      multiples[adapter],
      ADAPTER_STREAM_GOALS.multipleOfOpenAi,
      '×',
    ),
  );
}

/**
 * Rounds alternating the adapters (a slow spell of the shared machine hits each alike): per round
 * and adapter, the short reply then the long one at `connections` connections for `seconds`.
 */
export async function adapterStreamScenario(
  gateway: { baseUrl: string; apiKey: string; processes: NamedProcess[] },
  options: { connections: number; seconds: number; rounds: number; adapters?: AdapterName[] },
  signal: AbortSignal,
): Promise<AdapterStreamScenarioResult> {
  const adapters = options.adapters ?? (Object.keys(ADAPTER_STREAM_MODELS) as AdapterName[]);
  const problems: string[] = [];
  const target = (adapter: AdapterName, model: string) => ({
    name: `${adapter}-stream`,
    label: `${adapter} via the gateway (${model})`,
    url: `${gateway.baseUrl}/chat/completions`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    }),
    processes: gateway.processes,
  });
  for (const adapter of adapters)
    for (const model of [ADAPTER_STREAM_MODELS[adapter].short, ADAPTER_STREAM_MODELS[adapter].long]) {
      const pool = streamPool(target(adapter, model), 1);
      const outcome = await streamOnce(pool, target(adapter, model), signal).finally(() => pool.close());
      if (!complete(outcome))
        throw new Error(`${model} did not stream: ${outcome.body ?? `status ${outcome.status}, [DONE] ${outcome.done}`}`);
    }
  const rounds = new Map<AdapterName, AdapterStreamResult['rounds']>(adapters.map((adapter) => [adapter, []]));
  const run = async (adapter: AdapterName, model: string) => {
    const result = await throughputRun(
      target(adapter, model),
      { connections: options.connections, throughputSeconds: options.seconds },
      signal,
    );
    if (result.failed > 0)
      problems.push(`${model} streams: ${result.failed} of ${result.streams} incomplete (${JSON.stringify(result.failures)})`);
    return result;
  };
  for (let index = 1; index <= options.rounds; index += 1)
    for (const adapter of adapters) {
      console.log(
        `==> adapter streams, round ${index} of ${options.rounds}: ${adapter}, short then long reply, ${options.connections} connections`,
      );
      const short = await run(adapter, ADAPTER_STREAM_MODELS[adapter].short);
      const long = await run(adapter, ADAPTER_STREAM_MODELS[adapter].long);
      rounds.get(adapter)!.push({ short, long });
      const figures = marginalOfRound(short, long);
      console.log(
        `    ${short.chunksPerStream} / ${long.chunksPerStream} chunks, ${short.streamsPerSecond} / ${long.streamsPerSecond} streams/s; ` +
          `marginal µs/chunk: gateway + inference ${figures ? round(figures.gatewaySide!, 1) : '–'} (inference ${figures ? round(figures.inference ?? 0, 1) : '–'}, ` +
          `simulator ${figures ? round(figures['provider-simulator'] ?? 0, 1) : '–'}, machine ${figures ? round(figures.machine ?? 0, 1) : '–'})`,
      );
    }
  const results: AdapterStreamScenarioResult['adapters'] = {};
  for (const adapter of adapters) {
    const adapterRounds = rounds.get(adapter)!;
    results[adapter] = {
      model: { short: ADAPTER_STREAM_MODELS[adapter].short, long: ADAPTER_STREAM_MODELS[adapter].long },
      rounds: adapterRounds,
      marginalCpuMicrosPerChunk: marginalOfRounds(adapterRounds),
    };
  }
  const openAi = results.openai?.marginalCpuMicrosPerChunk.gatewaySide;
  const multipleOfOpenAi: AdapterStreamScenarioResult['multipleOfOpenAi'] = {};
  for (const adapter of adapters) {
    const figure = results[adapter]?.marginalCpuMicrosPerChunk.gatewaySide;
    if (openAi && openAi > 0 && figure !== undefined) multipleOfOpenAi[adapter] = round(figure / openAi, 2);
  }
  return { adapters: results, multipleOfOpenAi, goals: adapterGoals(multipleOfOpenAi), problems };
}
