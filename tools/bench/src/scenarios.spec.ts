import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_CATALOG_PATHS } from '@gw/stack';
import {
  concurrencyGoals,
  SLOW_MODEL,
  slowUpstreamModel,
  upstreamConnections,
  benchModels,
  writeBenchCatalog,
  FIREHOSE_MODEL,
  LONG_MODEL,
  type PhaseResult,
} from './concurrency-scenario.ts';
import {
  compareStreams,
  failureReasons,
  marginalCpuPerChunk,
  streamGoals,
  type StreamScenarioResult,
  type StreamThroughput,
  type StreamTargetResult,
} from './stream-scenario.ts';
import { summarize } from './stats.ts';
import { ADAPTER_STREAM_MODELS, marginalOfRound } from './adapter-stream-scenario.ts';

function streamRun(streamsPerSecond: number, cpu: { total: number; machine: number }, chunksPerStream = 12): StreamThroughput {
  return {
    connections: 32,
    seconds: 6,
    streamsPerSecond,
    streams: 100,
    failed: 0,
    chunksPerStream,
    streamMs: summarize([1]),
    cpuMicrosPerStream: cpu,
    cpuMicrosPerChunk: { total: cpu.total / chunksPerStream, machine: cpu.machine / chunksPerStream },
    syscallsPerStream: {},
  };
}

function streamTarget(firstToken: number[], streamsPerSecond: number, cpu: { total: number; machine: number }): StreamTargetResult {
  const throughput = streamRun(streamsPerSecond, cpu);
  return {
    label: 'x',
    url: 'http://x',
    firstToken: summarize(firstToken),
    wholeStream: summarize(firstToken),
    rounds: [throughput],
    throughput,
  };
}

describe('failed streams by reason', () => {
  it('counts each refusal, transport failure and error chunk once per reason, request ids aside', () => {
    const base = { firstDataMs: undefined, totalMs: 1, events: 0, done: false, errorEvents: 0 };
    const refusal = (id: string) => `402 {"error":{"code":402,"metadata":{"reason":"insufficient_credits","request_id":"${id}"}}}`;
    const reasons = failureReasons([
      { ...base, status: 402, body: refusal('a') },
      { ...base, status: 402, body: refusal('b') },
      { ...base, status: 200, events: 4, failure: 'other side closed' },
      { ...base, status: 200, events: 5, errorEvents: 1, firstError: '{"id":"c1","error":{"code":502}}' },
      { ...base, status: 200, events: 12, done: true },
    ]);
    expect(reasons).toEqual({
      '402 {"error":{"code":402,"metadata":{"reason":"insufficient_credits"}}}': 2,
      'transport: other side closed after 4 events': 1,
      'error chunk: {"error":{"code":502}}': 1,
    });
  });
});

describe('stream scenario figures', () => {
  const targets: StreamScenarioResult['targets'] = {
    direct: streamTarget([0.2, 0.3, 0.4], 6000, { total: 60, machine: 120 }),
    gateway: streamTarget([1.0, 1.1, 3.4], 900, { total: 1260, machine: 1560 }),
    portkey: streamTarget([0.8, 0.9, 1.0], 700, { total: 900, machine: 1100 }),
  };

  it('takes what the gateway adds over the simulator alone, per chunk, and its rate against Portkey', () => {
    expect(compareStreams(targets)).toEqual({
      addedFirstTokenMs: { mean: 1.533, p50: 0.8, p99: 3 },
      addedCpuMicrosPerChunk: { total: 100, machine: 120 },
      gatewayMultipleOfPortkey: 1.29,
    });
  });

  it('evaluates the goals on the machine-wide figure, Portkey left undecided when not measured', () => {
    const goals = streamGoals(compareStreams(targets));
    expect(goals.map((goal) => [goal.value, goal.met])).toEqual([
      [1.533, false],
      [undefined, undefined],
      [1.29, false],
    ]);
    const { portkey: _portkey, ...withoutPortkey } = targets;
    expect(streamGoals(compareStreams(withoutPortkey as StreamScenarioResult['targets']))[2]!.met).toBeUndefined();
  });
});

describe('marginal CPU per chunk', () => {
  const at = (short: number, long: number) => ({
    short: streamRun(1, { total: 0, machine: short }),
    long: streamRun(1, { total: 0, machine: long }, 64),
  });
  const target = (rounds: Array<ReturnType<typeof at>>): StreamTargetResult => ({
    ...streamTarget([1], 1, { total: 0, machine: 0 }),
    rounds: rounds.map((round) => round.short),
    longRounds: rounds.map((round) => round.long),
  });

  it("takes the gateway's extra CPU for 52 more events less the direct path's, the median of the rounds", () => {
    // Round 1: ((2400 − 1560) − (300 − 120)) / 52 = 12.69; round 2: ((2600 − 1500) − (320 − 100)) / 52 = 16.92; round 3: 10.
    const direct = target([at(120, 300), at(100, 320), at(100, 100)]);
    const gateway = target([at(1560, 2400), at(1500, 2600), at(1500, 2020)]);
    expect(marginalCpuPerChunk(direct, gateway)).toBe(12.7);
    const goals = streamGoals({ ...compareStreams({ direct, gateway }) });
    expect(goals[1]).toMatchObject({ value: 12.7, met: true });
  });

  it('leaves out rounds where noise made the figure negative, and is absent when none is left', () => {
    const direct = target([at(100, 600), at(100, 300)]);
    const gateway = target([at(1500, 1700), at(1500, 2220)]);
    expect(marginalCpuPerChunk(direct, gateway)).toBe(10);
    expect(marginalCpuPerChunk(target([at(100, 600)]), target([at(1500, 1700)]))).toBeUndefined();
    expect(
      marginalCpuPerChunk(streamTarget([1], 1, { total: 0, machine: 0 }), streamTarget([1], 1, { total: 0, machine: 0 })),
    ).toBeUndefined();
  });
});

describe('concurrency scenario', () => {
  it('writes its slow model, its firehose and its long reply as copies of dev fixtures with their own upstreams', () => {
    const devCatalog = JSON.parse(readFileSync(DEV_CATALOG_PATHS[1], 'utf8'));
    const catalog = benchModels(devCatalog, 60);
    expect(catalog.providers).toEqual([]);
    expect(catalog.models).toHaveLength(5);
    expect(catalog.models.find((entry) => entry.id === ADAPTER_STREAM_MODELS.bedrock.long)).toMatchObject({
      listed: false,
      endpoints: [
        expect.objectContaining({
          provider: 'simulator-bedrock',
          upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0;reply-tokens=180',
        }),
      ],
    });
    expect(catalog.models.find((entry) => entry.id === ADAPTER_STREAM_MODELS.gemini.long)).toMatchObject({
      endpoints: [expect.objectContaining({ provider: 'simulator-gemini', upstreamModel: 'gemini-2.5-flash;reply-tokens=180' })],
    });
    expect(catalog.models.find((entry) => entry.id === LONG_MODEL)).toMatchObject({
      listed: false,
      endpoints: [expect.objectContaining({ upstreamModel: 'gpt-4o-mini;reply-tokens=180' })],
    });
    expect(catalog.models.find((entry) => entry.id === FIREHOSE_MODEL)).toMatchObject({
      listed: false,
      endpoints: [expect.objectContaining({ provider: 'simulator-openai', upstreamModel: 'gpt-4o-mini;reply-tokens=100000' })],
    });
    const model = catalog.models.find((entry) => entry.id === SLOW_MODEL)!;
    expect(model.listed).toBe(false);
    expect(model.endpoints).toEqual([
      expect.objectContaining({ provider: 'simulator-openai', upstreamModel: 'gpt-4o-mini;chunk-delay=2727;reply-tokens=57' }),
    ]);
    expect(slowUpstreamModel(5)).toBe('gpt-4o-mini;chunk-delay=227;reply-tokens=57');
  });

  it("runs on the dev stack's catalog files plus its own, whose ids none of them holds (the loader refuses a duplicate)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-catalog-'));
    const paths = writeBenchCatalog(DEV_CATALOG_PATHS, dir, 60).split(',');
    expect(paths).toEqual([...DEV_CATALOG_PATHS, join(dir, 'bench-catalog.json')]);
    const idsOf = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as { models: Array<{ id: string }> }).models.map((m) => m.id);
    const ours = idsOf(paths[2]!);
    expect(ours).toEqual([SLOW_MODEL, FIREHOSE_MODEL, LONG_MODEL, ADAPTER_STREAM_MODELS.bedrock.long, ADAPTER_STREAM_MODELS.gemini.long]);
    expect(DEV_CATALOG_PATHS.flatMap(idsOf).filter((id) => ours.includes(id))).toEqual([]);
  });

  it("sizes inference's upstream pool for every stream at once, within its bounds", () => {
    expect(upstreamConnections(100)).toBe(256);
    expect(upstreamConnections(2_200)).toBe(2_264);
    expect(upstreamConnections(10_000)).toBe(4_096);
  });

  const phase = (overrides: Partial<PhaseResult>): PhaseResult => ({
    streams: 2000,
    complete: 2000,
    errors: 0,
    failures: [],
    completionMs: summarize([60_100, 60_200, 60_400]),
    firstTokenMs: summarize([5]),
    wallSeconds: 61,
    gateway: { samples: 60, rssMaxMB: 250, rssStartMB: 120, eventLoopLagP99Ms: 20, eventLoopLagMaxMs: 80 },
    inference: { samples: 60, rssMaxMB: 250, rssStartMB: 120, eventLoopLagP99Ms: 20, eventLoopLagMaxMs: 80 },
    ...overrides,
  });

  it("meets the goals when every stream completed within the bounds, and judges the readers' slowdown against phase 1", () => {
    const goals = concurrencyGoals(phase({}), phase({ completionMs: summarize([60_100, 60_300, 61_000]) }));
    expect(goals.map((goal) => goal.met)).toEqual([true, true, true, true]);
    expect(goals[3]!.value).toBe(0.99);
  });

  it('fails each goal on its own figure', () => {
    const goals = concurrencyGoals(
      phase({
        complete: 1999,
        errors: 1,
        gateway: { samples: 1, rssMaxMB: 300, rssStartMB: 100, eventLoopLagP99Ms: 50.1, eventLoopLagMaxMs: 90 },
      }),
      phase({ completionMs: summarize([70_000]) }),
    );
    expect(goals.map((goal) => goal.met)).toEqual([false, false, false, false]);
    expect(concurrencyGoals(phase({}))[3]!.met).toBeUndefined();
    // Readers that failed among the stalled clients have no completion time to be slow with: not met.
    expect(concurrencyGoals(phase({}), phase({ errors: 3, completionMs: summarize([]) }))[3]!.met).toBe(false);
  });
});

describe('adapter stream scenario', () => {
  it("a chunk's marginal CPU per process is (long - short) per stream over the extra events; gatewaySide sums api-gateway and inference", () => {
    const run = (events: number, cpu: Record<string, number>) =>
      ({ chunksPerStream: events, cpuMicrosPerStream: cpu }) as unknown as Parameters<typeof marginalOfRound>[0];
    const figures = marginalOfRound(
      run(12, { 'api-gateway': 1000, inference: 2000, 'provider-simulator': 500, machine: 9000 }),
      run(64, { 'api-gateway': 1520, inference: 3040, 'provider-simulator': 760, machine: 14200 }),
    );
    expect(figures).toEqual({ 'api-gateway': 10, inference: 20, 'provider-simulator': 5, machine: 100, gatewaySide: 30 });
    expect(marginalOfRound(run(12, {}), run(12, {}))).toBeUndefined();
  });
});
