import { GatewayError } from '@gw/errors';

/** Deepest nesting of objects and arrays a body may have (the body itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/**
 * Top-level fields of the provider-bound endpoints whose strings go to the provider and are
 * never stored: message content, Responses `input` / `instructions`, Anthropic's `system`,
 * tool definitions. NUL is legal JSON text and some clients send it there; everywhere else
 * (names, ids, metadata, model, preset bodies, ...) a string may end up in PostgreSQL, whose
 * `text` refuses NUL (22021), so the edge refuses it first.
 */
export const PROVIDER_ONLY_FIELDS: ReadonlySet<string> = new Set(['messages', 'input', 'instructions', 'system', 'tools']);

/** The endpoints whose bodies go to a provider as they are (not the preset writes: those are stored). */
const PROVIDER_BOUND_ROUTE = /^\/v1\/(chat\/completions|responses|messages|embeddings)\/?(\?|$)/;

export function nulAllowedUnder(url: string): ReadonlySet<string> | undefined {
  return PROVIDER_BOUND_ROUTE.test(url) ? PROVIDER_ONLY_FIELDS : undefined;
}

const childPath = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : `${parent}.${key}`;

const printable = (text: string) => text.replaceAll('\u0000', '\\u0000');

/** ES2024's String.prototype.isWellFormed (Node 20+), native and far cheaper than a regex. */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

interface Frame {
  value: unknown;
  path: string;
  depth: number;
  nulAllowed: boolean;
}

/**
 * One iterative walk over a parsed body (no recursion, so no stack to overflow whatever the
 * depth): refuses nesting deeper than {@link MAX_JSON_DEPTH}, a lone surrogate in any string
 * or property name (everywhere), the NUL character in any string or property name outside
 * `nulAllowedUnder` (top-level fields), and the prototype poisoning keys. Returns the 400 to answer, naming the field in the message and in
 * `metadata.param` (under `root` when given: a part of a body read as a stream), or undefined.
 */
export function checkJsonBody(body: unknown, nulAllowedUnder?: ReadonlySet<string>, root = ''): GatewayError | undefined {
  const stack: Frame[] = [{ value: body, path: root, depth: 1, nulAllowed: false }];
  while (stack.length > 0) {
    const { value, path, depth, nulAllowed } = stack.pop()!;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) return surrogateError(path || 'body', '');
      if (!nulAllowed && value.includes('\u0000'))
        return nulError(path || 'body', `${path || 'body'}: must not contain the NUL character (\\u0000)`);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) {
      return GatewayError.badRequest(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels`, { max_depth: MAX_JSON_DEPTH });
    }
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--)
        stack.push({ value: value[index], path: childPath(path, index), depth: depth + 1, nulAllowed });
      continue;
    }
    const keys = Object.keys(value);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index]!;
      const allowed = nulAllowed || (depth === 1 && nulAllowedUnder?.has(key) === true);
      if (!isWellFormed(key)) return surrogateError(path || 'body', 'property names ');
      if (!nulAllowed && key.includes('\u0000')) {
        const param = path || 'body';
        return nulError(param, `${param}: property names must not contain the NUL character (\\u0000): "${printable(key).slice(0, 64)}"`);
      }
      const child = (value as Record<string, unknown>)[key];
      // What secure-json-parse (Fastify's default) refuses, named like any unknown field:
      // `__proto__` anywhere, and a `constructor` carrying a `prototype`.
      if (
        key === '__proto__' ||
        (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'))
      ) {
        return GatewayError.badRequest(`${childPath(path, key)}: property ${key} should not exist`, { param: childPath(path, key) });
      }
      stack.push({ value: child, path: childPath(path, key), depth: depth + 1, nulAllowed: allowed });
    }
  }
  return undefined;
}

/** `"\ud800"` is valid JSON text but no Unicode: PostgreSQL's json refuses it and providers garble it. */
function surrogateError(param: string, what: string): GatewayError {
  return GatewayError.badRequest(
    `${param}: ${what}must be valid Unicode: a lone UTF-16 surrogate (\\ud800-\\udfff without its pair) is not a character`,
    { param },
  );
}

function nulError(param: string, message: string): GatewayError {
  return GatewayError.badRequest(message, { param });
}
