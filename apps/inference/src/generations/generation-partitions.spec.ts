import { describe, expect, it } from 'vitest';
import { expiredPartitions, utcDay } from './generation-partitions.service.js';
import { createdBetween } from './generation-reader.service.js';

describe('generation partitions', () => {
  it('names the UTC day of a creation time, whatever its offset', () => {
    expect(utcDay('2026-11-27T23:30:00-02:00')).toBe('2026-11-28');
    expect(utcDay('not a time')).toBeUndefined();
  });

  it('expires the days that ended before the retention, never today or other tables', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const names = ['generations_20261028', 'generations_20261029', 'generations_20261128', 'generations_unpartitioned', 'other_20200101'];
    expect(expiredPartitions(names, now, 30)).toEqual(['generations_20261028']);
    expect(expiredPartitions(names, now, 1)).toEqual(['generations_20261028', 'generations_20261029']);
  });

  it('bounds a read by the time an id was minted, and not for ids of other shapes', () => {
    const minted = Date.parse('2026-11-28T10:00:00Z');
    expect(createdBetween(`gen-${minted.toString(36)}-abc`)).toEqual(['2026-11-28T09:59:00.000Z', '2026-11-30T10:00:00.000Z']);
    expect(createdBetween('msg_01abc')).toEqual([null, null]);
    expect(createdBetween('gen-zzzzzzzzzzz-x')).toEqual([null, null]);
  });
});
