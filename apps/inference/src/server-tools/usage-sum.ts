/**
 * The usage of an answer that took several model calls: every count and cost summed
 * field by field (nested details too; null + n = n; booleans OR-ed), costs rounded to the
 * 12 decimal places money is kept in so float sums do not drift from the generation records.
 */
export function sumUsageViews<T extends object>(views: readonly T[]): T {
  const [first, ...rest] = views;
  if (!first) throw new Error('an answer has at least one model call');
  return rest.reduce((total, view) => add(total, view) as T, structuredClone(first));
}

function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return Number((a + b).toFixed(12));
  if (typeof a === 'boolean' || typeof b === 'boolean') return Boolean(a) || Boolean(b);
  if ((a === null || a === undefined) && typeof b === 'number') return b;
  if (typeof a === 'number' && (b === null || b === undefined)) return a;
  if (isObject(a) && isObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [key, value] of Object.entries(b)) out[key] = key in a ? add(a[key], value) : structuredClone(value);
    return out;
  }
  return a ?? b;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
