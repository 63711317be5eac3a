import { afterEach, describe, expect, it } from 'vitest';
import { filtersOf, fromLocalInput, toLocalInput } from './generation-query';

const zone = process.env.TZ;

describe("the explorer's filters", () => {
  afterEach(() => {
    process.env.TZ = zone;
  });

  it('reads the times typed in the viewer’s zone as the instants they name, and back', () => {
    process.env.TZ = 'Asia/Kolkata';
    expect(fromLocalInput('2026-11-29T07:31:05')).toBe('2026-11-29T02:01:05.000Z');
    expect(toLocalInput('2026-11-29T02:01:05.000Z')).toBe('2026-11-29T07:31:05');
    process.env.TZ = 'America/New_York';
    expect(fromLocalInput('2026-11-29T07:31')).toBe('2026-11-29T12:31:00.000Z');
    expect(toLocalInput(fromLocalInput('2026-03-08T01:59:59'))).toBe('2026-03-08T01:59:59');
  });

  it('passes what is not a time to the API as typed (its 400 says why), and leaves empty fields out', () => {
    expect(fromLocalInput('')).toBe('');
    expect(fromLocalInput('yesterday')).toBe('yesterday');
    expect(toLocalInput('yesterday')).toBe('');
    const query = new URLSearchParams('status=failed&model=&id=gen-1&cursor=abc&cost_gt=0.5&limit=3');
    expect(filtersOf(query).toString()).toBe('status=failed&cost_gt=0.5');
  });
});
