import { describe, expect, it } from 'vitest';
import { atLeast, atMost, below, formatGoals, holds } from './goals.ts';

describe('bench goals', () => {
  it('evaluates bounds, the bound itself included where the goal says so', () => {
    expect(atMost('ttft', 1, 1, 'ms').met).toBe(true);
    expect(atMost('ttft', 1.01, 1, 'ms').met).toBe(false);
    expect(below('rss', 300, 300, 'MB').met).toBe(false);
    expect(below('rss', 299.9, 300, 'MB').met).toBe(true);
    expect(atLeast('vs Portkey', 1.5, 1.5, '×').met).toBe(true);
    expect(atLeast('vs Portkey', 1.49, 1.5, '×').met).toBe(false);
    expect(holds('complete', true, 'yes')).toMatchObject({ met: true, value: 1 });
    expect(holds('complete', false, 'yes')).toMatchObject({ met: false, value: 0 });
  });

  it('leaves a figure that was not measured undecided', () => {
    expect(atLeast('vs Portkey', undefined, 1.5, '×').met).toBeUndefined();
    expect(formatGoals([atLeast('vs Portkey', undefined, 1.5, '×')])).toContain('goal ≥ 1.5 ×: not measured');
  });

  it('prints each figure next to its goal and verdict', () => {
    const text = formatGoals([atMost('CPU per chunk', 22.5, 15, 'µs'), below('RSS', 120, 300, 'MB'), holds('zero errors', true, 'yes')]);
    expect(text.split('\n')).toEqual([
      expect.stringMatching(/CPU per chunk\s+22\.5 µs\s+goal ≤ 15 µs: NOT met$/),
      expect.stringMatching(/RSS\s+120 MB\s+goal < 300 MB: met$/),
      expect.stringMatching(/zero errors\s+yes\s+goal yes: met$/),
    ]);
  });
});
