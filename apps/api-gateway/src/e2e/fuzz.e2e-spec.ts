import { ERROR_TYPES } from '@gw/errors';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, stack } from './e2e-helpers.js';

/*
 * Issue 9 item 9: property-based fuzzing of every body endpoint through the running gateway.
 * Whatever arrives, the gateway answers: never a 5xx, every error the spec's envelope (§7.1)
 * with a canonical error_type, never a hang. Bodies are valid bodies with mutations (fields
 * replaced by any JSON, keys added: inherited names, NUL, poisoning keys), any JSON at all,
 * deep nesting, text that is not JSON, other content types. Runs are reproducible: FUZZ_SEED
 * (default below) and FUZZ_RUNS (default 300) choose them; a failure prints the seed and path.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** Longest a single answer may take before the run counts as a hang. */
const ANSWER_WITHIN_MS = 10_000;

const NO_INTERN = '00000000-0000-4000-8000-000000000000';
const known = new Set<string>(ERROR_TYPES);

interface Endpoint {
  method: 'POST' | 'PATCH' | 'DELETE';
  path: () => string;
  key: () => string;
  base: Record<string, unknown>;
}

let ownKeyHash = '';
let ownByokId = '';

const api = () => stack.apiKey;
const management = () => stack.managementKey;
const messages = [{ role: 'user', content: 'Hi' }];

/** Every endpoint that takes a body, with a body it accepts. */
const ENDPOINTS: Endpoint[] = [
  { method: 'POST', path: () => '/chat/completions', key: api, base: { model: 'sim/gpt-4o-mini', messages, max_tokens: 16 } },
  { method: 'POST', path: () => '/responses', key: api, base: { model: 'sim/gpt-4o-mini', input: 'Hi', max_output_tokens: 16 } },
  { method: 'POST', path: () => '/messages', key: api, base: { model: 'sim/claude-sonnet', max_tokens: 16, messages } },
  { method: 'POST', path: () => '/embeddings', key: api, base: { model: 'sim/text-embedding-3-small', input: 'Hi' } },
  { method: 'POST', path: () => '/keys', key: management, base: { name: 'fuzz', limit: 1 } },
  { method: 'PATCH', path: () => `/keys/${ownKeyHash}`, key: management, base: { name: 'fuzzed', limit_reset: 'daily' } },
  { method: 'POST', path: () => '/byok', key: management, base: { provider: 'openai', key: 'sk-fuzz-0123456789abcdef', name: 'fuzz' } },
  { method: 'PATCH', path: () => `/byok/${ownByokId}`, key: management, base: { name: 'fuzzed', disabled: false } },
  {
    method: 'POST',
    path: () => '/presets/fuzz/chat/completions',
    key: management,
    base: { model: 'sim/gpt-4o-mini', messages: [{ role: 'system', content: 'Be terse.' }] },
  },
  { method: 'POST', path: () => '/credits', key: management, base: { amount: 0.001 } },
  { method: 'POST', path: () => '/interns', key: api, base: { name: 'fuzz' } },
  { method: 'PATCH', path: () => `/interns/${NO_INTERN}`, key: api, base: { name: 'fuzzed' } },
  { method: 'DELETE', path: () => `/interns/${NO_INTERN}`, key: api, base: {} },
  { method: 'POST', path: () => `/interns/${NO_INTERN}/daemon/sign`, key: api, base: { bodySha256: 'a'.repeat(64) } },
  { method: 'POST', path: () => `/interns/${NO_INTERN}/daemon-access/sign`, key: api, base: { bodySha256: 'b'.repeat(64) } },
];

/** Keys that have broken parsers and validators elsewhere. */
const nastyKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  'isPrototypeOf',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '',
  ' ',
  '$where',
  'stream',
  'model',
  'n',
);
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000',
    '\ud800',
    'ok \udc00 then \ud83d',
    '\ud83d\ude00',
    '%ff',
    '../../etc/passwd',
    '${x}',
    '\u202e',
    'sim/gpt-4o-mini',
    'sim/claude-sonnet',
    'x'.repeat(5_000),
  ),
);
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  fc.constantFrom(null, true, false, 0, -1, 1e308, -1e308, 1.5, 2 ** 53 + 1, Number.MIN_VALUE, [], {}),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.jsonValue({ maxDepth: 4 }),
);

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = level % 2 ? [value] : { a: value };
  return value;
}

/** Deep bodies are built when sent: a counterexample stays a number fast-check can print. */
type Mutation =
  { kind: 'json'; body: unknown } | { kind: 'raw'; text: string; contentType: string | undefined } | { kind: 'deep'; levels: number };

/** A body for `endpoint`: its valid body mutated, or anything at all. */
const bodyFor = (endpoint: Endpoint): fc.Arbitrary<Mutation> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          set: fc.dictionary(fc.constantFrom(...Object.keys(endpoint.base), 'stream', 'metadata', 'session_id', 'user'), nastyValue, {
            maxKeys: 3,
          }),
          add: fc.array(fc.tuple(fc.oneof(nastyKey, fc.string({ maxLength: 12 })), nastyValue), { maxLength: 3 }),
        })
        .map(({ set, add }) => {
          // Written as JSON text, so `__proto__` arrives as an own key, as a client would send it.
          const entries = [...Object.entries({ ...endpoint.base, ...set }), ...add].map(
            ([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`,
          );
          return { kind: 'raw' as const, text: `{${entries.join(',')}}`, contentType: 'application/json' };
        }),
    },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 5 }).map((body) => ({ kind: 'json' as const, body })) },
    { weight: 1, arbitrary: fc.integer({ min: 60, max: 3_000 }).map((levels) => ({ kind: 'deep' as const, levels })) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          text: fc.oneof(
            fc.string({ maxLength: 200 }),
            fc.constantFrom(
              '',
              '{',
              '{"a":',
              '[]',
              'null',
              '"\\u0000"',
              '{"a":1}{"b":2}',
              '\uFEFF{}',
              '{"model":"sim/gpt-4o-mini","messages":[}',
            ),
          ),
          contentType: fc.constantFrom(
            'application/json',
            'application/json; charset=utf-8',
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/jsonx',
            undefined,
          ),
        })
        .map(({ text, contentType }) => ({ kind: 'raw' as const, text, contentType })),
    },
  );

async function send(endpoint: Endpoint, mutation: Mutation): Promise<{ status: number; body: unknown; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${endpoint.key()}` };
  let body: string;
  if (mutation.kind === 'json') {
    body = JSON.stringify(mutation.body) ?? 'null';
    headers['content-type'] = 'application/json';
  } else if (mutation.kind === 'deep') {
    body = JSON.stringify({ ...endpoint.base, messages: nested(mutation.levels), input: nested(mutation.levels) });
    headers['content-type'] = 'application/json';
  } else {
    body = mutation.text;
    if (mutation.contentType) headers['content-type'] = mutation.contentType;
  }
  const response = await fetch(`${stack.baseUrl}${endpoint.path()}`, {
    method: endpoint.method,
    headers,
    body,
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // an SSE stream, or a failure the assertion reports
  }
  return { status: response.status, body: parsed, text };
}

function assertAnswer(status: number, body: unknown, text: string, what: string): void {
  expect(status, `${what} -> ${status} ${text.slice(0, 300)}`).toBeLessThan(500);
  if (status < 400) return;
  const envelope = body as { error?: { code?: unknown; message?: unknown; metadata?: { error_type?: unknown } } };
  expect(envelope?.error, `${what}: not an envelope: ${text.slice(0, 300)}`).toBeDefined();
  expect(envelope.error!.code, what).toBe(status);
  expect(typeof envelope.error!.message, what).toBe('string');
  expect(
    known.has(envelope.error!.metadata?.error_type as string),
    `${what}: error_type ${String(envelope.error!.metadata?.error_type)}`,
  ).toBe(true);
}

/** The ids of the shared e2e workspace's BYOK credentials (a stored one changes routing for every later test). */
async function byokIds(): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const listed = await call(`/byok?limit=100&offset=${offset}`, { key: stack.managementKey });
    const page = ((listed.body as { data?: Array<{ id: string }> }).data ?? []).map((credential) => credential.id);
    ids.push(...page);
    if (page.length < 100) return ids;
  }
}

describe(`fuzzing every body endpoint (seed ${SEED}, ${RUNS} runs)`, () => {
  let byokBefore: Set<string>;

  // Leave the shared workspace as it was: a BYOK credential the fuzz created would route later
  // tests' requests through it (presets-byok-in-use expects none for openai).
  afterAll(async () => {
    for (const id of await byokIds()) if (!byokBefore.has(id)) await call(`/byok/${id}`, { key: stack.managementKey, method: 'DELETE' });
  });

  beforeAll(async () => {
    byokBefore = new Set(await byokIds());
    const key = await call('/keys', { key: stack.managementKey, body: { name: 'fuzz target' } });
    ownKeyHash = (key.body as { data: { hash: string } }).data.hash;
    const byok = await call('/byok', {
      key: stack.managementKey,
      body: { provider: 'openai', key: 'sk-fuzz-target-0123456789', name: 'fuzz target' },
    });
    expect(byok.status, JSON.stringify(byok.body)).toBe(201);
    ownByokId = (byok.body as { data: { id: string } }).data.id;
  });

  it('answers every body without a 5xx, with the envelope, in time', async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: ENDPOINTS.length - 1 }).chain((index) => bodyFor(ENDPOINTS[index]!).map((mutation) => ({ index, mutation }))),
        async ({ index, mutation }) => {
          const endpoint = ENDPOINTS[index]!;
          const shown =
            mutation.kind === 'json'
              ? JSON.stringify(mutation.body)?.slice(0, 200)
              : mutation.kind === 'deep'
                ? `${mutation.levels} levels deep`
                : `${mutation.contentType} ${mutation.text.slice(0, 200)}`;
          const what = `${endpoint.method} ${endpoint.path()} ${shown}`;
          const { status, body, text } = await send(endpoint, mutation);
          assertAnswer(status, body, text, what);
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // Keep it a cheap part of `npm test`.
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it('answers malformed URLs and methods with the envelope', async () => {
    const segment = fc.oneof(
      fc.stringMatching(/^[a-zA-Z0-9._~%-]{0,40}$/),
      fc.constantFrom('%', '%ff', '%zz', '%c3%28', '%00', '%2e%2e', 'x'.repeat(150), '..', '%E2%80%AE'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/keys', '/byok', '/presets', '/interns', '/chat/completions', '/models', '/credits'),
        segment,
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT'),
        async (prefix, tail, method) => {
          const response = await fetch(`${stack.baseUrl}${prefix}/${tail}`, {
            method,
            headers: { authorization: `Bearer ${stack.managementKey}`, 'content-type': 'application/json' },
            body: method === 'GET' ? undefined : '{}',
            signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
          });
          const text = await response.text();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // reported below
          }
          assertAnswer(response.status, body, text, `${method} ${prefix}/${tail}`);
        },
      ),
      { seed: SEED, numRuns: Math.max(50, Math.round(RUNS / 3)), endOnFailure: true },
    );
  }, 120_000);
});
