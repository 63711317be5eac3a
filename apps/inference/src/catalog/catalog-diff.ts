import type { CatalogDiffEntry } from '@gw/contracts';

/**
 * What changed from one catalog document to the next, path by path: providers and models (and
 * any array of objects with an `id`) are matched by id, so a change reads `models[x].name`, not
 * an index that shifts. Literal API keys never appear in a change record (`${VAR}` references do).
 */
export function diffCatalogs(before: unknown, after: unknown): CatalogDiffEntry[] {
  const entries: CatalogDiffEntry[] = [];
  diffValues('', before, after, entries);
  return entries;
}

function diffValues(path: string, before: unknown, after: unknown, out: CatalogDiffEntry[]): void {
  if (sameJson(before, after)) return;
  if (isObject(before) && isObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const child = path === '' ? key : `${path}.${key}`;
      if (!(key in after)) out.push({ op: 'remove', path: child, before: redacted(key, before[key]) });
      else if (!(key in before)) out.push({ op: 'add', path: child, after: redacted(key, after[key]) });
      else diffValues(child, before[key], after[key], out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const beforeIds = idsOf(before);
    const afterIds = idsOf(after);
    if (beforeIds && afterIds) {
      for (const [id, value] of beforeIds)
        if (afterIds.has(id)) diffValues(`${path}[${id}]`, value, afterIds.get(id), out);
        else out.push({ op: 'remove', path: `${path}[${id}]`, before: redacted('', value) });
      for (const [id, value] of afterIds)
        if (!beforeIds.has(id)) out.push({ op: 'add', path: `${path}[${id}]`, after: redacted('', value) });
      return;
    }
    if (before.length === after.length) {
      before.forEach((value, index) => diffValues(`${path}[${index}]`, value, after[index], out));
      return;
    }
  }
  const key = path.slice(path.lastIndexOf('.') + 1);
  out.push({ op: 'change', path, before: redacted(key, before), after: redacted(key, after) });
}

/** The array's entries by id, when every entry is an object with a distinct string id. */
function idsOf(items: unknown[]): Map<string, unknown> | undefined {
  const byId = new Map<string, unknown>();
  for (const item of items) {
    const id = isObject(item) ? item.id : undefined;
    if (typeof id !== 'string' || byId.has(id)) return undefined;
    byId.set(id, item);
  }
  return byId;
}

const REFERENCE = /^\$\{[A-Z0-9_]+(?::-[^}]*)?\}$/;

/** An `apiKey` that is not a `${VAR}` reference (or empty) is a secret: recorded as changed, never as its value. */
export function redacted(key: string, value: unknown): unknown {
  if (key === 'apiKey') return typeof value === 'string' && (value === '' || REFERENCE.test(value)) ? value : '[redacted]';
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redacted(name, item)]));
  if (Array.isArray(value)) return value.map((item) => redacted('', item));
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
