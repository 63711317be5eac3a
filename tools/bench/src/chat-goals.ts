import { atLeast, atMost, type Goal } from './goals.ts';
import { round } from './measure.ts';
import type { TargetResult } from './report.ts';
import { median } from './stats.ts';

/** Issue 17's goals for non-streamed chat completions against Portkey's gateway. */
export const CHAT_GOALS = { addedCpuOfPortkey: 0.5, throughputOfPortkey: 1.6, addedLatencyOfPortkey: 1 } as const;

export interface PairedFigures {
  /** Our added machine CPU per request ÷ Portkey's, both over the same round's direct run (32 connections). */
  addedCpu: number;
  /** Our req/s ÷ Portkey's at the throughput run's connections. */
  throughput: number;
  /** Our added mean latency at 1 connection ÷ Portkey's. */
  addedLatency: number;
}

export interface ChatVersusPortkey {
  /**
   * One entry per round: direct, gateway and Portkey run back to back in a round, so a ratio
   * taken within it compares runs minutes apart, not a slow spell of the machine against a fast
   * one. A ratio whose Portkey figure is not positive is left out (null): noise, not a figure.
   */
  rounds: Array<{ [K in keyof PairedFigures]: number | null }>;
  /** The median of each ratio over the rounds that have it. */
  median: { [K in keyof PairedFigures]: number | undefined };
  goals: Goal[];
}

const added = (target: TargetResult, direct: TargetResult, figure: (result: TargetResult) => number | undefined) =>
  (figure(target) ?? 0) - (figure(direct) ?? 0);

const machineCpu = (result: TargetResult) => result.throughput.cpuMicrosPerRequest.machine;
const meanLatency = (result: TargetResult) => result.latency.latencyMs.mean;

function ratio(ours: number, theirs: number): number | null {
  return theirs > 0 ? round(ours / theirs, 2) : null;
}

function medianOf(values: Array<number | null>): number | undefined {
  const present = values.filter((value): value is number => value !== null);
  return present.length > 0 ? median(present) : undefined;
}

/**
 * Issue 17's chat goals, each as the median of per-round ratios (issue 17: "3 alternating rounds,
 * medians"). The table's medians of each target are taken separately, so their ratio can pair a
 * fast round of one target with a slow round of the other; on this VM the per-round ratios of
 * one run spread by ±30 %, and the JSON keeps each one.
 */
export function chatVersusPortkey(direct: TargetResult[], gateway: TargetResult[], portkey: TargetResult[]): ChatVersusPortkey {
  const count = Math.min(direct.length, gateway.length, portkey.length);
  const rounds = Array.from({ length: count }, (_, index) => {
    const [base, ours, theirs] = [direct[index]!, gateway[index]!, portkey[index]!];
    return {
      addedCpu: ratio(added(ours, base, machineCpu), added(theirs, base, machineCpu)),
      throughput: ratio(ours.throughput.requestsPerSecond, theirs.throughput.requestsPerSecond),
      addedLatency: ratio(added(ours, base, meanLatency), added(theirs, base, meanLatency)),
    };
  });
  const medians = {
    addedCpu: medianOf(rounds.map((entry) => entry.addedCpu)),
    throughput: medianOf(rounds.map((entry) => entry.throughput)),
    addedLatency: medianOf(rounds.map((entry) => entry.addedLatency)),
  };
  return {
    rounds,
    median: medians,
    goals: [
      atMost("chat: added CPU per request ÷ Portkey's (machine-wide, 32 connections)", medians.addedCpu, CHAT_GOALS.addedCpuOfPortkey, '×'),
      atLeast("chat: requests/s ÷ Portkey's (32 connections)", medians.throughput, CHAT_GOALS.throughputOfPortkey, '×'),
      atMost("chat: added mean latency ÷ Portkey's (1 connection)", medians.addedLatency, CHAT_GOALS.addedLatencyOfPortkey, '×'),
    ],
  };
}

/** The per-round ratios as one line, e.g. `added CPU 0.93 1.01 0.86; req/s 1.33 1.24 1.43; latency 2.1 1.9 2.2`. */
export function formatPairedRounds(paired: ChatVersusPortkey): string {
  const list = (key: keyof PairedFigures) => paired.rounds.map((entry) => entry[key] ?? '–').join(' ');
  return `per round (gateway ÷ Portkey): added CPU ${list('addedCpu')}; req/s ${list('throughput')}; added latency ${list('addedLatency')}`;
}
