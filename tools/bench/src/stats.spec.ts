import { describe, expect, it } from 'vitest';
import { median, percentile, summarize } from './stats.ts';

describe('bench statistics', () => {
  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });

  it('summarizes values in any order, rounded', () => {
    expect(summarize([3, 1, 2, 10], 1)).toEqual({ count: 4, mean: 4, p50: 2, p99: 10, max: 10 });
    expect(summarize([1 / 3], 3)).toEqual({ count: 1, mean: 0.333, p50: 0.333, p99: 0.333, max: 0.333 });
    expect(summarize([])).toEqual({ count: 0, mean: 0, p50: 0, p99: 0, max: 0 });
  });

  it('takes the median (the upper middle of an even count)', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(3);
    expect(median([])).toBe(0);
  });
});
