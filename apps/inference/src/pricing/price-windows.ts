import type { Prisma } from '../generated/prisma/client.js';

/** A time-of-day price window as billing reads it (catalog `pricing.timeWindows`, built once per version). */
export interface PriceWindowPricing {
  name: string;
  /** Days the window starts on, 0 = Sunday (UTC); unset: every day. */
  days?: ReadonlySet<number>;
  /** Minutes after 00:00 UTC; `end <= start` runs past midnight, `end === start` is the whole day. */
  start: number;
  end: number;
  prompt: Prisma.Decimal;
  completion: Prisma.Decimal;
  cachedPrompt: Prisma.Decimal;
  cacheWritePrompt?: Prisma.Decimal;
}

const DAY_MS = 86_400_000;

export function minutesOf(clock: string): number {
  const [hours, minutes] = clock.split(':').map(Number);
  return hours! * 60 + minutes!;
}

/** The first window in force at `epochMs` (start inclusive, end exclusive), or undefined. */
export function windowAt<W extends Omit<PriceWindowPricing, 'prompt' | 'completion' | 'cachedPrompt'>>(
  windows: readonly W[] | undefined,
  epochMs: number,
): W | undefined {
  if (!windows || windows.length === 0) return undefined;
  const day = Math.floor(epochMs / DAY_MS);
  const minute = Math.floor((epochMs - day * DAY_MS) / 60_000);
  // 1970-01-01 was a Thursday (4).
  const weekday = (day + 4) % 7;
  const yesterday = (weekday + 6) % 7;
  const startsOn = (window: W, candidate: number) => !window.days || window.days.has(candidate);
  return windows.find((window) => {
    if (window.start === window.end) return startsOn(window, weekday);
    if (window.start < window.end) return startsOn(window, weekday) && minute >= window.start && minute < window.end;
    return (startsOn(window, weekday) && minute >= window.start) || (startsOn(window, yesterday) && minute < window.end);
  });
}
