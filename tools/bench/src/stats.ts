/** Mean and nearest-rank percentiles of a sample, in the sample's unit. */
export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of values sorted ascending; 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Summary of `values` (any order), rounded to `digits` decimals. */
export function summarize(values: readonly number[], digits = 3): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const factor = 10 ** digits;
  const fix = (value: number) => Math.round(value * factor) / factor;
  return {
    count: sorted.length,
    mean: fix(sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length)),
    p50: fix(percentile(sorted, 50)),
    p99: fix(percentile(sorted, 99)),
    max: fix(sorted.at(-1) ?? 0),
  };
}

/** The middle value (the upper one of an even count); 0 for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
