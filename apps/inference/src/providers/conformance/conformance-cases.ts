import { expect } from 'vitest';
import { Prisma } from '../../generated/prisma/client.js';
import type { EndpointPricing } from '../../catalog/catalog.service.js';
import { computeCost } from '../../pricing/cost.js';
import type { Capability, Collected, ConformanceSubject, ExpectedFailure, Fault, Mode } from './conformance-run.js';

/** The price every conformance endpoint has, so each case's cost is known to the last digit. */
export const CONFORMANCE_PRICING: EndpointPricing = {
  prompt: new Prisma.Decimal('0.000001'),
  completion: new Prisma.Decimal('0.000002'),
  cachedPrompt: new Prisma.Decimal('0.0000001'),
  cacheWritePrompt: new Prisma.Decimal('0.00000125'),
};
/** The simulators' default reply length, in tokens. */
const REPLY_TOKENS = 24;
/** What the simulators count an image as. */
const IMAGE_TOKENS = 85;
const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export const PLAIN_MESSAGES = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Hello there' },
];
const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};
const TIME = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
};

export type Expectation =
  | { kind: 'answer'; check(answer: Collected, subject: ConformanceSubject): void }
  | { kind: 'failure'; failure(subject: ConformanceSubject): ExpectedFailure }
  /** The client went away mid-stream: the iteration ends as aborted, long before the answer's end. */
  | { kind: 'cancelled' };

export interface ConformanceCase {
  name: string;
  directives?: string;
  /** An error case: its directive is the subject's (or DEFAULT_FAULTS'), its mapping the subject's where it declares one. */
  fault?: Fault;
  badCredential?: boolean;
  body?: Record<string, unknown>;
  /** Streamed, not, or both (the default): the same expectation holds either way. */
  modes?: readonly Mode[];
  needs?: Capability;
  /** Streamed: the client aborts after this many events. */
  cancelAfter?: number;
  expect: Expectation;
}

/** Usage and its cost, exactly: prompt (cached and cache-written parts at their prices), completion, reasoning inside completion. */
function expectUsage(
  answer: Collected,
  expected: { prompt: number; completion: number; cached?: number; cacheWrite?: number; reasoning?: number },
): void {
  const usage = answer.usage!;
  expect(usage, 'usage').toBeDefined();
  expect({
    prompt: usage.promptTokens,
    completion: usage.completionTokens,
    cached: usage.cachedTokens,
    estimated: usage.estimated,
  }).toEqual({
    prompt: expected.prompt,
    completion: expected.completion,
    cached: expected.cached ?? 0,
    estimated: false,
  });
  if (expected.reasoning !== undefined) expect(usage.reasoningTokens).toBe(expected.reasoning);
  if (expected.cacheWrite !== undefined) expect(usage.cacheWriteTokens).toBe(expected.cacheWrite);
  const cached = expected.cached ?? 0;
  const written = expected.cacheWrite ?? 0;
  const cost = new Prisma.Decimal('0.000001')
    .mul(expected.prompt - cached - written)
    .add(new Prisma.Decimal('0.0000001').mul(cached))
    .add(new Prisma.Decimal('0.00000125').mul(written))
    .add(new Prisma.Decimal('0.000002').mul(expected.completion));
  expect(computeCost(CONFORMANCE_PRICING, usage).total.toString()).toBe(cost.toString());
}

/** A filter's stop: finish_reason content_filter, and the refusal where the provider words one. */
function expectFiltered(a: Collected, s: ConformanceSubject): void {
  expect(a.finishReason).toBe('content_filter');
  if (s.lacks['filter-refusal'] !== undefined) return;
  expect(a.content).toBeNull();
  expect(a.refusal).toMatch(/safety/i);
}

const answer = (check: (answer: Collected, subject: ConformanceSubject) => void): Expectation => ({ kind: 'answer', check });
const failure = (status: number, errorType: string, extra: Omit<ExpectedFailure, 'status' | 'errorType'> = {}): Expectation => ({
  kind: 'failure',
  failure: () => ({ status, errorType, ...extra }),
});

/** The table every adapter runs (conformance.int-spec.ts), each case streamed and not unless it says. */
export const CONFORMANCE_CASES: ConformanceCase[] = [
  {
    name: 'plain answer with exact usage and cost',
    expect: answer((a, s) => {
      expect(a.content).toMatch(/^Simulated reply to: Hello there\./);
      expect(a.finishReason).toBe('stop');
      expectUsage(a, { prompt: s.plainPromptTokens, completion: REPLY_TOKENS });
    }),
  },
  {
    name: 'multi-turn: answers the last user turn',
    body: { messages: [...PLAIN_MESSAGES, { role: 'assistant', content: 'Hi.' }, { role: 'user', content: 'What comes next' }] },
    expect: answer((a) => expect(a.content).toMatch(/^Simulated reply to: What comes next\./)),
  },
  {
    name: 'max tokens ends with finish_reason length',
    body: { max_tokens: 5 },
    expect: answer((a) => {
      expect(a.finishReason).toBe('length');
      expect(a.usage?.completionTokens).toBe(5);
    }),
  },
  {
    name: 'one tool call',
    needs: 'tools',
    body: { tools: [WEATHER], tool_choice: 'required' },
    expect: answer((a) => {
      expect(a.finishReason).toBe('tool_calls');
      expect(a.toolCalls).toHaveLength(1);
      expect(a.toolCalls[0]!.name).toBe('get_weather');
      expect(JSON.parse(a.toolCalls[0]!.arguments)).toEqual({ location: 'Hello there' });
      expect(a.toolCalls[0]!.id).not.toBe('');
    }),
  },
  {
    name: 'parallel tool calls',
    needs: 'parallel-tools',
    directives: 'parallel-tools=1',
    body: { tools: [WEATHER, TIME], tool_choice: 'required' },
    expect: answer((a) => {
      expect(a.finishReason).toBe('tool_calls');
      expect(a.toolCalls.map((call) => call.name)).toEqual(['get_weather', 'get_time']);
      expect(JSON.parse(a.toolCalls[1]!.arguments)).toEqual({ zone: 'Hello there' });
      expect(new Set(a.toolCalls.map((call) => call.id)).size).toBe(2);
    }),
  },
  {
    name: 'tool result round trip',
    needs: 'tools',
    body: {
      tools: [WEATHER],
      messages: [
        ...PLAIN_MESSAGES,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' },
      ],
    },
    expect: answer((a) => {
      expect(a.content).toContain('Based on the tool result: "Sunny"');
      expect(a.finishReason).toBe('stop');
    }),
  },
  {
    name: 'JSON schema output',
    needs: 'json-schema',
    body: {
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'city',
          schema: { type: 'object', properties: { city: { type: 'string' }, rank: { type: 'integer' } }, required: ['city', 'rank'] },
        },
      },
    },
    expect: answer((a) => expect(Object.keys(JSON.parse(a.content!) as object).sort()).toEqual(['city', 'rank'])),
  },
  {
    name: 'image input counts as an image',
    needs: 'images',
    body: {
      messages: [
        PLAIN_MESSAGES[0],
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hello there' },
            { type: 'image_url', image_url: { url: PIXEL } },
          ],
        },
      ],
    },
    expect: answer((a, s) => expectUsage(a, { prompt: s.plainPromptTokens + IMAGE_TOKENS, completion: REPLY_TOKENS })),
  },
  {
    name: 'reasoning: thoughts returned and counted in completion tokens',
    directives: 'reasoning=7',
    body: { max_tokens: 4096, reasoning: { max_tokens: 2048 } },
    expect: answer((a, s) => {
      expect(a.reasoning).toMatch(/^Thinking about how to answer: Hello there/);
      expectUsage(a, {
        prompt: s.plainPromptTokens,
        completion: REPLY_TOKENS + 7,
        reasoning: s.lacks['reasoning-tokens'] === undefined ? 7 : undefined,
      });
    }),
  },
  {
    name: 'cache read usage at the cached price',
    needs: 'cache-usage',
    directives: 'cached=4',
    expect: answer((a, s) => expectUsage(a, { prompt: s.plainPromptTokens, completion: REPLY_TOKENS, cached: 4 })),
  },
  {
    name: 'tool arguments streamed in fragments after the id and name',
    needs: 'streamed-tool-args',
    modes: ['stream'],
    body: { tools: [WEATHER], tool_choice: 'required' },
    expect: answer((a) => {
      expect(a.toolCallDeltas[0]).toMatchObject({ index: 0, id: expect.any(String), name: 'get_weather' });
      expect(a.toolCallDeltas.filter((delta) => delta.arguments !== '').length).toBeGreaterThan(1);
      expect(JSON.parse(a.toolCalls[0]!.arguments)).toEqual({ location: 'Hello there' });
      expect(a.finishReason).toBe('tool_calls');
    }),
  },
  {
    name: 'parallel tool results go back in one turn',
    needs: 'tools',
    body: {
      tools: [WEATHER],
      messages: [
        ...PLAIN_MESSAGES,
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: 'Sunny' },
        { role: 'tool', tool_call_id: 'call_b', content: 'Rainy' },
      ],
    },
    expect: answer((a) => expect(a.content).toContain('Based on the tool result: "Sunny | Rainy"')),
  },
  {
    name: 'cache writes priced apart from reads',
    needs: 'cache-write',
    directives: 'cached=4;cache-write=3',
    expect: answer((a, s) => expectUsage(a, { prompt: s.plainPromptTokens, completion: REPLY_TOKENS, cached: 4, cacheWrite: 3 })),
  },
  { name: 'content filter stops the answer: content_filter', fault: 'answer-filter', expect: answer(expectFiltered) },
  {
    name: 'content filter blocks the prompt: content_filter (or the provider’s refusal of the prompt)',
    fault: 'prompt-filter',
    expect: answer(expectFiltered),
  },
  {
    name: 'refused credential',
    needs: 'credential',
    badCredential: true,
    expect: failure(502, 'provider_unavailable', { retryable: false }),
  },
  { name: 'permission denied (403)', fault: 'permission-denied', expect: failure(502, 'provider_unavailable', { retryable: false }) },
  {
    name: 'rate limit with the provider’s wait',
    fault: 'rate-limit',
    expect: failure(429, 'rate_limit_exceeded', { retryable: true, retryAfter: 7 }),
  },
  { name: 'quota exhausted', fault: 'quota', expect: failure(429, 'rate_limit_exceeded', { retryable: true }) },
  { name: 'context too long', fault: 'context', expect: failure(400, 'context_length_exceeded', { retryable: false }) },
  { name: 'overloaded', fault: 'overloaded', expect: failure(503, 'provider_overloaded', { retryable: true }) },
  { name: 'server error (500)', fault: 'server-error', expect: failure(502, 'provider_unavailable', { retryable: true }) },
  { name: 'provider timeout', fault: 'timeout', expect: failure(504, 'timeout', { retryable: true }) },
  { name: 'cut stream', fault: 'cut', modes: ['stream'], expect: failure(502, 'provider_unavailable', { retryable: false }) },
  {
    name: 'error event mid-stream',
    fault: 'stream-error',
    modes: ['stream'],
    expect: { kind: 'failure', failure: (s) => ({ ...s.streamError, retryable: false }) },
  },
  { name: 'cancellation mid-stream', directives: 'chunk-delay=30', modes: ['stream'], cancelAfter: 2, expect: { kind: 'cancelled' } },
];
