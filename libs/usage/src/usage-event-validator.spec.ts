import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { getMetadataStorage } from 'class-validator';
import { UsageDetails, UsageRecordedEvent, validateDto } from '@gw/contracts';
import { USAGE_RECORDED_EVENT_SCHEMA, validUsageRecordedEvent } from './usage-event-validator.js';

/**
 * The compiled validator against the rules it replaces: class-validator's
 * `validateDto(UsageRecordedEvent, event, 'strip')` plus the 18-decimal limit on amounts, as
 * `parseUsageEvents` ran them before. Both must accept and refuse the same inputs and return the
 * same event.
 */
async function reference(candidate: unknown): Promise<unknown> {
  if (!candidate || typeof candidate !== 'object') return null;
  let event: UsageRecordedEvent;
  try {
    event = await validateDto(UsageRecordedEvent, candidate, 'strip');
  } catch {
    return null;
  }
  for (const value of [event.cost, event.upstreamCost]) {
    if ((value.split('.')[1]?.length ?? 0) > 18) return null;
  }
  return event;
}

/** Both validators on their own copy of the same JSON (the compiled one strips in place). */
async function both(json: string): Promise<{ expected: unknown; actual: unknown }> {
  const expected = await reference(JSON.parse(json));
  const actual = validUsageRecordedEvent(JSON.parse(json));
  // Compared as the JSON consumers would write or forward (class instances vs plain objects).
  const plain = (value: unknown) => (value === null ? null : (JSON.parse(JSON.stringify(value)) as unknown));
  return { expected: plain(expected), actual: plain(actual) };
}

const UUID = '6f1c2a4e-1b2c-4d3e-8f4a-1234567890ab';
const VALID = {
  generationId: 'gen-0123456789',
  workspaceId: UUID,
  keyHash: 'a1'.repeat(32),
  userId: '0b6c3f0e-9d7a-4c1e-b2f3-5a6b7c8d9e0f',
  model: 'sim/gpt-4o-mini',
  provider: 'simulator-openai',
  upstreamModel: 'gpt-4o-mini',
  status: 'succeeded',
  isByok: false,
  promptTokens: 12,
  completionTokens: 34,
  cachedTokens: 0,
  reasoningTokens: 0,
  tokensEstimated: false,
  cost: '0.000012345',
  upstreamCost: '0.00001',
  latencyMs: 87,
  createdAt: '2026-11-23T08:00:00.000Z',
};
const FULL = {
  ...VALID,
  sessionId: 'session-1',
  batchId: 'batch_1',
  kind: 'generation',
  attempts: 2,
  endpointsTried: ['a/b', 'simulator-openai/gpt-4o-mini'],
  usageDetails: { web_search_requests: 1, cache_write_tokens: 5 },
  streamed: true,
  finishReason: 'stop',
  nativeFinishReason: 'end_turn',
  upstreamId: 'msg_01',
  generationTimeMs: 12,
  cancelled: false,
  serviceTier: 'default',
  requestId: 'req-1',
  priceVersion: 3,
  cacheHit: true,
  costAvoided: '0.25',
  responseCacheSourceId: 'gen-abc',
  cacheDiscount: '-0.000001',
  presetId: '6f1c2a4e-1b2c-4d3e-8f4a-1234567890ab',
  router: 'openrouter/auto',
  numMediaPrompt: 2,
  numInputAudioPrompt: 0,
  moderationLatencyMs: 40,
  traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
};

const long = (unit: string, count: number) => unit.repeat(count);

/** Values that sit on an edge of some rule; every property is tried with each of them. */
const EDGES: unknown[] = [
  null,
  '',
  'x',
  ' ',
  0,
  -0,
  -1,
  1,
  1.5,
  2 ** 53,
  1e300,
  true,
  false,
  [],
  {},
  ['a'],
  [1],
  [{}],
  [{ web_search_requests: 1, extra: 2 }],
  { web_search_requests: -1 },
  { web_search_requests: 1.5 },
  { web_search_requests: null, server_tool_calls_executed: 3, extra: 'x' },
  UUID.toUpperCase(),
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '6f1c2a4e-1b2c-9d3e-8f4a-1234567890ab',
  '6f1c2a4e1b2c4d3e8f4a1234567890ab',
  'A1'.repeat(32),
  'a1'.repeat(31),
  '2026-11-23',
  '2026-11-23T08:00:00Z',
  '2026-11-23T08:00:00+01:00',
  '2026-11-23T08:00:00+0100',
  '2026-02-30T00:00:00Z',
  '2026-11-23 08:00:00Z',
  '20261123T080000Z',
  '2026-W47-1',
  '1',
  '1.',
  '.5',
  '01.50',
  '1e5',
  '-1',
  '1\n',
  `0.${long('1', 18)}`,
  `0.${long('1', 19)}`,
  '١٢',
  'succeeded',
  'failed',
  'generation',
  'batch_charge',
  long('a', 128),
  long('a', 129),
  long('a', 256),
  long('a', 257),
  long('😀', 128),
  long('😀', 129),
  long('a\uFE0F', 128),
  long('a\uFE0F', 129),
  long('\uD83D', 129),
  `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
  `00-${'A'.repeat(32)}-${'b'.repeat(16)}-01`,
  Array.from({ length: 64 }, () => 'e'),
  Array.from({ length: 65 }, () => 'e'),
];

const PROPERTIES = [...Object.keys(FULL), 'unknownProperty'];
/** Names every object inherits: `validateDto` refuses them as top-level keys; nested, class-validator lets them through. */
const INHERITED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'];

/** JSON with `key` set to the raw JSON `value` (so `__proto__` is an own key, as JSON.parse makes it). */
function withRaw(base: object, key: string, value: string): string {
  const json = JSON.stringify(base);
  return `{"${key}":${value},${json.slice(1)}`;
}

describe('validUsageRecordedEvent (compiled) against class-validator', () => {
  it('accepts what inference and batch publish, unchanged', async () => {
    for (const event of [VALID, FULL, { ...VALID, kind: 'batch_charge', batchId: 'batch_1', generationId: 'batch_1' }]) {
      const { expected, actual } = await both(JSON.stringify(event));
      expect(actual).toEqual(event);
      expect(actual).toEqual(expected);
    }
  });

  it('decides like class-validator on every property set to every edge value, or missing', async () => {
    let accepted = 0;
    let refused = 0;
    for (const property of PROPERTIES) {
      const variants = [
        ...EDGES.map((value) => ({ ...FULL, [property]: value })),
        Object.fromEntries(Object.entries(FULL).filter(([key]) => key !== property)),
      ];
      for (const variant of variants) {
        const json = JSON.stringify(variant);
        const { expected, actual } = await both(json);
        expect(actual, json).toEqual(expected);
        if (expected === null) refused++;
        else accepted++;
      }
    }
    // The table exercises both sides of the rules.
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(500);
  }, 30_000); // every property times every edge value: seconds on a shared machine

  it('refuses inherited names at the top level and strips or keeps them nested as class-validator does', async () => {
    for (const name of INHERITED) {
      for (const value of ['1', '"x"', '{"a":1}', 'null']) {
        const top = await both(withRaw(FULL, name, value));
        expect(top.actual).toBeNull();
        expect(top.expected).toBeNull();
        const nested = await both(withRaw(VALID, 'usageDetails', `{"${name}":${value},"web_search_requests":2}`));
        expect(nested.actual, `${name}: ${value}`).toEqual(nested.expected);
      }
    }
  });

  it('refuses what is not an event object', async () => {
    for (const json of ['null', '1', '"x"', 'true', '[]', JSON.stringify([VALID])]) {
      const { expected, actual } = await both(json);
      expect(actual).toBeNull();
      expect(expected).toBeNull();
    }
  });

  it('decides like class-validator on usage details nested in arrays (fast-check found `[[]]`)', async () => {
    for (const usageDetails of [[[]], [[{ web_search_requests: 1 }]], [[{ web_search_requests: -1 }]], [[1]], [[[{ extra: 1 }]]]]) {
      const json = JSON.stringify({ ...FULL, usageDetails });
      const { expected, actual } = await both(json);
      expect(actual, json).toEqual(expected);
    }
  });

  it('decides like class-validator on random events (fast-check)', async () => {
    const value = fc.oneof(fc.constantFrom(...EDGES), fc.jsonValue({ maxDepth: 2 }), fc.string({ unit: 'binary', maxLength: 140 }));
    const mutation = fc.dictionary(
      fc.constantFrom(...PROPERTIES, ...Object.keys(new UsageDetails())),
      fc.option(value, { nil: undefined }),
      {
        maxKeys: 4,
      },
    );
    await fc.assert(
      fc.asyncProperty(mutation, async (changes) => {
        const event: Record<string, unknown> = { ...FULL, ...changes };
        for (const [key, change] of Object.entries(changes)) if (change === undefined) delete event[key];
        const json = JSON.stringify(event);
        const { expected, actual } = await both(json);
        expect(actual, json).toEqual(expected);
      }),
      { numRuns: 1_500 },
    );
  }, 60_000);

  it('declares exactly the properties of the DTO classes (a property added to the contract must be added to the schema)', () => {
    const declared = (target: new () => object) =>
      [
        ...new Set(
          getMetadataStorage()
            .getTargetValidationMetadatas(target, '', true, false)
            .map((rule) => rule.propertyName),
        ),
      ].sort();
    expect(Object.keys(USAGE_RECORDED_EVENT_SCHEMA.properties as object).sort()).toEqual(declared(UsageRecordedEvent));
    const defs = USAGE_RECORDED_EVENT_SCHEMA.$defs as Record<string, { anyOf: Array<{ properties: object }> }>;
    const details = defs.usageDetails!.anyOf[0]!.properties;
    expect(Object.keys(details).sort()).toEqual(declared(UsageDetails));
  });
});
