import { describe, expect, it } from 'vitest';
import { chatVersusPortkey, formatPairedRounds } from './chat-goals.ts';
import type { RunFigures } from './measure.ts';
import type { TargetResult } from './report.ts';

function run(requestsPerSecond: number, extra: Partial<RunFigures>): RunFigures {
  return {
    connections: 32,
    durationSeconds: 6,
    requestsPerSecond,
    latencyMs: { mean: 1, p50: 1, p99: 1, max: 1 },
    totalRequests: 1,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: { 200: 1 },
    cpuMicrosPerRequest: {},
    syscallsPerRequest: {},
    ...extra,
  };
}

/** A round's figures of one target: machine CPU per request at 32 connections, req/s, mean latency at 1 connection. */
function target(machine: number, requestsPerSecond: number, latencyMean: number): TargetResult {
  return {
    label: 'x',
    url: 'http://x',
    throughput: run(requestsPerSecond, { cpuMicrosPerRequest: { total: machine, machine } }),
    latency: run(500, { latencyMs: { mean: latencyMean, p50: latencyMean, p99: latencyMean, max: latencyMean } }),
    warmup: { totalRequests: 0, non2xx: 0, errors: 0 },
  };
}

describe('chat goals against Portkey, from paired rounds', () => {
  it('takes each ratio within a round, over that round’s direct run, and reports the median of the rounds', () => {
    const direct = [target(70, 20_000, 0.1), target(200, 15_000, 0.2), target(60, 21_000, 0.1)];
    const gateway = [target(670, 2_400, 2.1), target(1_400, 1_500, 3.2), target(560, 2_800, 1.9)];
    const portkey = [target(670, 2_000, 1.1), target(1_000, 1_000, 1.2), target(1_060, 1_750, 1.1)];
    const paired = chatVersusPortkey(direct, gateway, portkey);
    // (670-70)/(670-70), (1400-200)/(1000-200), (560-60)/(1060-60)
    expect(paired.rounds.map((entry) => entry.addedCpu)).toEqual([1, 1.5, 0.5]);
    expect(paired.rounds.map((entry) => entry.throughput)).toEqual([1.2, 1.5, 1.6]);
    expect(paired.rounds.map((entry) => entry.addedLatency)).toEqual([2, 3, 1.8]);
    expect(paired.median).toEqual({ addedCpu: 1, throughput: 1.5, addedLatency: 2 });
    expect(paired.goals.map((goal) => [goal.value, goal.goal, goal.met])).toEqual([
      [1, '≤ 0.5 ×', false],
      [1.5, '≥ 1.6 ×', false],
      [2, '≤ 1 ×', false],
    ]);
    expect(formatPairedRounds(paired)).toBe('per round (gateway ÷ Portkey): added CPU 1 1.5 0.5; req/s 1.2 1.5 1.6; added latency 2 3 1.8');
  });

  it('meets the goals when the medians do, a worse round notwithstanding', () => {
    const direct = [target(70, 20_000, 0.1), target(70, 20_000, 0.1), target(70, 20_000, 0.1)];
    const gateway = [target(370, 3_200, 0.9), target(570, 2_000, 1.1), target(370, 3_300, 0.6)];
    const portkey = [target(670, 2_000, 1.1), target(670, 2_000, 1.1), target(670, 2_000, 1.1)];
    const paired = chatVersusPortkey(direct, gateway, portkey);
    expect(paired.median).toEqual({ addedCpu: 0.5, throughput: 1.6, addedLatency: 0.8 });
    expect(paired.goals.map((goal) => goal.met)).toEqual([true, true, true]);
  });

  it('leaves out a round whose Portkey figure is not above direct’s (noise), and has no median without any', () => {
    const direct = [target(700, 20_000, 1.2), target(70, 20_000, 0.1)];
    const gateway = [target(900, 2_000, 2.2), target(670, 2_000, 2.1)];
    const portkey = [target(650, 1_000, 1.1), target(370, 1_000, 1.1)];
    const paired = chatVersusPortkey(direct, gateway, portkey);
    expect(paired.rounds.map((entry) => entry.addedCpu)).toEqual([null, 2]);
    expect(paired.rounds.map((entry) => entry.addedLatency)).toEqual([null, 2]);
    expect(paired.median.addedCpu).toBe(2);
    const none = chatVersusPortkey([direct[0]!], [gateway[0]!], [portkey[0]!]);
    expect(none.median.addedCpu).toBeUndefined();
    expect(none.goals[0]!.met).toBeUndefined();
    expect(formatPairedRounds(none)).toContain('added CPU –;');
  });
});
