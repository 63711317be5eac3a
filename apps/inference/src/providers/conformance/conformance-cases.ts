import { expect } from 'vitest';
import { Prisma } from '../../generated/prisma/client.js';
import type { EndpointPricing } from '../../catalog/catalog.service.js';
import { computeCost } from '../../pricing/cost.js';
import type { Capability, Collected, ConformanceSubject, Mode } from './conformance-run.js';

/** The price every conformance endpoint has, so each case's cost is known to the last digit. */
export const CONFORMANCE_PRICING: EndpointPricing = {
  prompt: new Prisma.Decimal('0.000001'),
  completion: new Prisma.Decimal('0.000002'),
  cachedPrompt: new Prisma.Decimal('0.0000001'),
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
  | {
      kind: 'failure';
      failure(subject: ConformanceSubject): { status: number; errorType: string; retryable?: boolean; retryAfter?: number };
    };

export interface ConformanceCase {
  name: string;
  directives?: string;
  badCredential?: boolean;
  body?: Record<string, unknown>;
  /** Streamed, not, or both (the default): the same expectation holds either way. */
  modes?: readonly Mode[];
  needs?: Capability;
  expect: Expectation;
}

/** Usage and its cost, exactly: prompt (cached part at the cached price), completion, reasoning inside completion. */
function expectUsage(answer: Collected, expected: { prompt: number; completion: number; cached?: number; reasoning?: number }): void {
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
  const cached = expected.cached ?? 0;
  const cost = new Prisma.Decimal('0.000001')
    .mul(expected.prompt - cached)
    .add(new Prisma.Decimal('0.0000001').mul(cached))
    .add(new Prisma.Decimal('0.000002').mul(expected.completion));
  expect(computeCost(CONFORMANCE_PRICING, usage).total.toString()).toBe(cost.toString());
}

const answer = (check: (answer: Collected, subject: ConformanceSubject) => void): Expectation => ({ kind: 'answer', check });
const failure = (status: number, errorType: string, extra: { retryable?: boolean; retryAfter?: number } = {}): Expectation => ({
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
        reasoning: s.capabilities.has('reasoning-tokens') ? 7 : undefined,
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
    name: 'safety filter stops the answer: content_filter and a refusal',
    needs: 'safety-filter',
    directives: 'safety-block=2',
    expect: answer((a) => {
      expect(a.finishReason).toBe('content_filter');
      expect(a.content).toBeNull();
      expect(a.refusal).toMatch(/safety/);
    }),
  },
  {
    name: 'safety filter blocks the prompt: content_filter and a refusal',
    needs: 'safety-filter',
    directives: 'safety-block=1',
    expect: answer((a) => {
      expect(a.finishReason).toBe('content_filter');
      expect(a.refusal).toMatch(/SAFETY/);
    }),
  },
  {
    name: 'refused credential',
    needs: 'credential',
    badCredential: true,
    expect: failure(502, 'provider_unavailable', { retryable: false }),
  },
  { name: 'permission denied (403)', directives: 'status=403', expect: failure(502, 'provider_unavailable', { retryable: false }) },
  {
    name: 'rate limit with the provider’s wait',
    directives: 'status=429;retry-after=7',
    expect: failure(429, 'rate_limit_exceeded', { retryable: true, retryAfter: 7 }),
  },
  { name: 'context too long', directives: 'context=5', expect: failure(400, 'context_length_exceeded', { retryable: false }) },
  { name: 'overloaded', directives: 'status=529', expect: failure(503, 'provider_overloaded', { retryable: true }) },
  { name: 'server error (500)', directives: 'status=500', expect: failure(502, 'provider_unavailable', { retryable: true }) },
  { name: 'provider timeout (504)', directives: 'status=504', expect: failure(504, 'timeout', { retryable: true }) },
  { name: 'cut stream', directives: 'cut=2', modes: ['stream'], expect: failure(502, 'provider_unavailable', { retryable: false }) },
  {
    name: 'error event mid-stream',
    directives: 'stream-error=2',
    modes: ['stream'],
    expect: { kind: 'failure', failure: (s) => ({ ...s.streamError, retryable: false }) },
  },
];
