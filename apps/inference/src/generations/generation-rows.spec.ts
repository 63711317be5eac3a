import type { UsageRecordedEvent } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { insertGenerations, ROLLUP_SUMS, textArrayLiteral } from './generation-rows.js';

const event = (overrides: Partial<UsageRecordedEvent> = {}): UsageRecordedEvent => ({
  generationId: 'gen-1',
  workspaceId: '00000000-0000-4000-8000-000000000001',
  keyHash: 'a'.repeat(64),
  userId: '00000000-0000-4000-8000-000000000002',
  model: 'sim/gpt-4o-mini',
  provider: 'simulator-openai',
  upstreamModel: 'gpt-4o-mini',
  status: 'failed',
  isByok: true,
  promptTokens: 1,
  completionTokens: 2,
  cachedTokens: 3,
  reasoningTokens: 4,
  tokensEstimated: true,
  cost: '0.5',
  upstreamCost: '1.5',
  latencyMs: 6,
  createdAt: '2026-11-27T12:00:00.5+02:00',
  ...overrides,
});

describe('insertGenerations', () => {
  it('is one named statement of 50 column arrays, a row per event in order', () => {
    const query = insertGenerations([
      event(),
      event({
        generationId: 'gen-2',
        sessionId: 's',
        batchId: 'b',
        attempts: 2,
        requestId: 'r',
        streamed: false,
        cacheHit: true,
        costAvoided: '0.25',
        priceVersion: 7,
        finishReason: 'length',
        nativeFinishReason: 'max_tokens',
        upstreamId: 'msg_1',
        generationTimeMs: 40,
        cancelled: true,
        serviceTier: 'flex',
        cacheDiscount: '-0.5',
        responseCacheSourceId: 'gen-0',
        presetId: 'p-1',
        router: 'openrouter/auto',
        numMediaPrompt: 2,
        numInputAudioPrompt: 1,
        moderationLatencyMs: 30,
        numSearchResults: 5,
        numFetches: 1,
        webSearchEngine: 'searxng',
        httpReferer: 'https://app.example',
        userAgent: 'OpenAI/JS 5.0',
        origin: 'https://app.example',
        attemptStatuses: [503, 0, 200],
        attemptLatenciesMs: [12, 30000, 41],
        externalUser: 'end-user-7',
      }),
    ]);
    expect(query.name).toBe('inference_insert_generations_and_rollups');
    expect(query.text).toContain('unnest(');
    expect(query.values).toHaveLength(50);
    for (const column of query.values!) expect(column).toHaveLength(2);
    expect(query.values![0]).toEqual(['gen-1', 'gen-2']);
    expect(query.values![7]).toEqual(['failed', 'failed']);
    expect(query.values![17]).toEqual([null, 's']); // session id
    expect(query.values![18]).toEqual([null, 'b']); // batch id
    expect(query.values![19]).toEqual([1, 2]); // attempts, 1 when absent
    expect(query.values![23]).toEqual([null, 'r']); // request id
    expect(query.values![24]).toEqual([null, false]); // streamed, null when the event does not say
    expect(query.values!.slice(25)).toEqual([
      [null, 'length'],
      [null, 'max_tokens'],
      [null, 'msg_1'],
      [null, 40],
      [null, true],
      [null, 'flex'],
      [null, 7],
      [false, true],
      [null, '0.25'],
      [null, '-0.5'],
      [null, 'gen-0'],
      [null, 'p-1'],
      [null, 'openrouter/auto'],
      [null, 2],
      [null, 1],
      [null, 30],
      [null, 5],
      [null, 1],
      [null, 'searxng'],
      [null, 'https://app.example'],
      [null, 'OpenAI/JS 5.0'],
      [null, 'https://app.example'],
      [null, '{503,0,200}'],
      [null, '{12,30000,41}'],
      [null, 'end-user-7'],
    ]);
  });

  it('sends the endpoints as array literals, usage details as JSON, the time as UTC', () => {
    const query = insertGenerations([event({ endpointsTried: ['a', 'b'], usageDetails: { cacheWriteTokens: 5 } as never })]);
    expect(query.values![20]).toEqual(['{"a","b"}']);
    expect(query.values![21]).toEqual(['{"cacheWriteTokens":5}']);
    expect(query.values![22]).toEqual(['2026-11-27T10:00:00.500Z']);
    const bare = insertGenerations([event({ createdAt: 'not a date' })]);
    expect(bare.values![20]).toEqual(['{}']);
    expect(bare.values![21]).toEqual([null]);
    expect(bare.values![22]).toEqual(['not a date']); // left for PostgreSQL to refuse
  });
});

describe('the rollup upserts', () => {
  it('write every sum of the one list to the hourly, the daily, the daily per-model and the hourly per-key table, each added on a conflict', () => {
    const { text } = insertGenerations([event()]);
    const [hourly, daily, models, keys] = text!.split('INSERT INTO generation_rollups').slice(1);
    expect(keys).toMatch(/^_hourly_keys AS total \(workspace_id, hour, key_hash, requests,/);
    expect(keys).toContain('ON CONFLICT (workspace_id, hour, key_hash) DO UPDATE');
    expect(hourly).toMatch(/^ AS total \(workspace_id, hour, key_hash, user_id, model,/);
    expect(daily).toMatch(/^_daily AS total \(workspace_id, day, key_hash, user_id, model,/);
    expect(models).toMatch(/^_daily_models AS total \(workspace_id, day, model, provider, upstream_model,/);
    expect(models).toContain('ON CONFLICT (workspace_id, day, model, provider, upstream_model) DO UPDATE');
    for (const [column, aggregate] of ROLLUP_SUMS) {
      for (const upsert of [hourly!, daily!, models!, keys!]) {
        expect(upsert).toContain(aggregate);
        expect(upsert).toContain(`${column} = total.${column} + excluded.${column}`);
      }
    }
    expect(ROLLUP_SUMS.map(([column]) => column)).toEqual(expect.arrayContaining(['cache_hits', 'cost_avoided', 'cache_savings']));
  });
});

describe('textArrayLiteral', () => {
  it('quotes every element and escapes quotes and backslashes', () => {
    expect(textArrayLiteral([])).toBe('{}');
    expect(textArrayLiteral(['NULL', '', 'a,b', 'c"d', 'e\\f', '{g}'])).toBe('{"NULL","","a,b","c\\"d","e\\\\f","{g}"}');
  });
});
