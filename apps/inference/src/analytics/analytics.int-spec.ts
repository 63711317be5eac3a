import { validateEnv } from '@gw/config';
import type { Principal, RequestFailedEvent, UsageRecordedEvent } from '@gw/contracts';
import { testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { InferenceEnv } from '../env.js';
import { GenerationPartitions } from '../generations/generation-partitions.service.js';
import { insertGenerations } from '../generations/generation-rows.js';
import { insertRequestFailures } from '../request-failures/request-failure-rows.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { AnalyticsService } from './analytics.service.js';

/**
 * The rollups against the rows they sum, on a real database: redeliveries and concurrent writers
 * (two replicas' consumers) add each generation exactly once, and every answer equals the sums of
 * the generation rows computed independently in SQL.
 */
describe('generation rollups and the analytics read', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'inference');
  let prisma: PrismaService;
  let analytics: AnalyticsService;
  const workspaceId = randomUUID();
  const keys = ['c'.repeat(64), 'd'.repeat(64)];
  const users = [randomUUID(), randomUUID()];
  const principal: Principal = { workspaceId, keyHash: keys[0]!, keyKind: 'management', userId: users[0]!, hasPersonalIdentity: false };
  const now = Date.now();
  const hourAgo = new Date(now - 3_600_000).toISOString();

  let serial = 0;
  const event = (overrides: Partial<UsageRecordedEvent> = {}): UsageRecordedEvent => {
    serial++;
    return {
      generationId: newGenerationId(),
      workspaceId,
      keyHash: keys[serial % 2]!,
      userId: users[serial % 2]!,
      model: serial % 3 === 0 ? 'sim/claude-sonnet' : 'sim/gpt-4o-mini',
      provider: serial % 3 === 0 ? 'simulator-anthropic' : 'simulator-openai',
      upstreamModel: serial % 3 === 0 ? 'claude-sonnet' : 'gpt-4o-mini',
      status: serial % 7 === 0 ? 'failed' : 'succeeded',
      isByok: serial % 5 === 0,
      promptTokens: 10 + serial,
      completionTokens: 3 * serial,
      cachedTokens: serial % 4,
      reasoningTokens: serial % 3,
      tokensEstimated: false,
      // Twelve decimals that no binary float holds exactly.
      cost: `0.${String(100_000_000_001 + serial * 7_919).padStart(12, '0')}`,
      upstreamCost: `0.${String(200_000_000_003 + serial * 104_729).padStart(12, '0')}`,
      latencyMs: 5 + serial,
      streamed: serial % 2 === 0,
      // A response-cache hit now and then: what it avoided is more than it was charged.
      ...(serial % 6 === 0 ? { cacheHit: true, costAvoided: `0.${String(300_000_000_007 + serial * 7_901).padStart(12, '0')}` } : {}),
      createdAt: serial % 4 === 0 ? hourAgo : new Date(now).toISOString(),
      ...overrides,
    };
  };

  beforeAll(async () => {
    const env = validateEnv(InferenceEnv, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
    prisma = new PrismaService(env);
    analytics = new AnalyticsService(prisma);
    await new GenerationPartitions(prisma, env).ensure([hourAgo, new Date(now).toISOString()]);
  });

  afterAll(async () => {
    await prisma?.$disconnect();
  });

  it('adds each generation once whatever the redeliveries and concurrent batches, and answers the rows sums', async () => {
    const events = Array.from({ length: 120 }, () => event());
    // Four writers at once (two replicas, two batches each), overlapping: every event is sent twice or more.
    const batches = [events.slice(0, 70), events.slice(50, 120), events.slice(0, 40), events.slice(30, 120).reverse()];
    await Promise.all(batches.map((batch) => prisma.pool.query(insertGenerations(batch))));
    await prisma.pool.query(insertGenerations(events));

    const expected = await prisma.pool.query<{
      requests: string;
      usage: string;
      byok: string;
      prompt: string;
      failed: string;
      hits: string;
      avoided: string;
      savings: string;
    }>(
      `SELECT count(*)::text AS requests, sum(cost)::text AS usage, COALESCE(sum(upstream_cost) FILTER (WHERE is_byok), 0)::text AS byok,
        sum(prompt_tokens)::text AS prompt, count(*) FILTER (WHERE status = 'failed')::text AS failed,
        count(*) FILTER (WHERE cache_hit)::text AS hits, sum(cost_avoided) FILTER (WHERE cache_hit)::text AS avoided,
        sum(cost_avoided - cost) FILTER (WHERE cache_hit)::text AS savings
       FROM generations WHERE workspace_id = $1`,
      [workspaceId],
    );
    const row = expected.rows[0]!;
    expect(Number(row.requests)).toBe(120);
    // The same sum in exact decimals computed here from the events.
    const exact = events.reduce((sum, item) => sum + BigInt(item.cost.replace('0.', '')), 0n);
    expect(row.usage).toBe(`${exact / 10n ** 12n}.${(exact % 10n ** 12n).toString().padStart(12, '0')}`);

    expect(Number(row.hits)).toBe(20);
    const total = await analytics.query(principal, {
      metrics: [
        'request_count',
        'usage',
        'byok_usage_inference',
        'prompt_tokens',
        'error_count',
        'response_cache_hits',
        'response_cache_cost_avoided',
        'response_cache_savings',
      ],
    });
    expect(total.data).toEqual([
      {
        request_count: 120,
        usage: Number(row.usage),
        byok_usage_inference: Number(row.byok),
        prompt_tokens: Number(row.prompt),
        error_count: Number(row.failed),
        response_cache_hits: 20,
        response_cache_cost_avoided: Number(row.avoided),
        response_cache_savings: Number(row.savings),
      },
    ]);
    // The daily rollups hold the same savings (a query on whole days reads them).
    const today = Math.floor(now / 86_400_000) * 86_400_000;
    const daily = await analytics.query(principal, {
      metrics: ['response_cache_savings'],
      time_range: { start: new Date(today - 86_400_000).toISOString(), end: new Date(today + 86_400_000).toISOString() },
    });
    expect(daily.data).toEqual([{ response_cache_savings: Number(row.savings) }]);
  });

  it('groups by hour, key and model, and filters, each group equal to the rows it sums', async () => {
    const answer = await analytics.query(principal, {
      metrics: ['request_count', 'usage', 'completion_tokens'],
      dimensions: ['api_key_id', 'model'],
      granularity: 'hour',
      filters: [{ field: 'provider', operator: 'in', value: ['simulator-openai', 'simulator-anthropic'] }],
    });
    const { rows } = await prisma.pool.query<{
      date: Date;
      key: string;
      model: string;
      requests: string;
      usage: string;
      completion: string;
    }>(
      `SELECT date_trunc('hour', created_at, 'UTC') AS date, key_hash AS key, model, count(*)::text AS requests, sum(cost)::text AS usage,
        sum(completion_tokens)::text AS completion
       FROM generations WHERE workspace_id = $1 GROUP BY 1, 2, 3`,
      [workspaceId],
    );
    expect(answer.data).toHaveLength(rows.length);
    for (const expected of rows) {
      expect(answer.data).toContainEqual({
        date: expected.date.toISOString(),
        api_key_id: expected.key,
        model: expected.model,
        request_count: Number(expected.requests),
        usage: Number(expected.usage),
        completion_tokens: Number(expected.completion),
      });
    }
    const oneKey = await analytics.query(principal, {
      metrics: ['request_count'],
      filters: [{ field: 'api_key_id', operator: 'eq', value: keys[1]! }],
    });
    expect(oneKey.data).toEqual([{ request_count: 60 }]);
    // Hourly by key alone reads the per-key hourly rollups: each group still the rows it sums (the redeliveries above added nothing).
    const byKey = await analytics.query(principal, {
      metrics: ['request_count', 'usage', 'prompt_tokens', 'response_cache_savings'],
      dimensions: ['api_key_id'],
      granularity: 'hour',
    });
    const perKey = await prisma.pool.query<{ date: Date; key: string; requests: string; usage: string; prompt: string; savings: string }>(
      `SELECT date_trunc('hour', created_at, 'UTC') AS date, key_hash AS key, count(*)::text AS requests, sum(cost)::text AS usage,
        sum(prompt_tokens)::text AS prompt, COALESCE(sum(cost_avoided - cost) FILTER (WHERE cache_hit), 0)::text AS savings
       FROM generations WHERE workspace_id = $1 GROUP BY 1, 2`,
      [workspaceId],
    );
    expect(perKey.rows.length).toBeGreaterThan(1);
    expect(byKey.data).toHaveLength(perKey.rows.length);
    for (const expected of perKey.rows) {
      expect(byKey.data).toContainEqual({
        date: expected.date.toISOString(),
        api_key_id: expected.key,
        request_count: Number(expected.requests),
        usage: Number(expected.usage),
        prompt_tokens: Number(expected.prompt),
        response_cache_savings: Number(expected.savings),
      });
    }
    const noneLeft = await analytics.query(principal, {
      metrics: ['request_count', 'avg_latency'],
      filters: [{ field: 'model', operator: 'not_in', value: ['sim/gpt-4o-mini', 'sim/claude-sonnet'] }],
    });
    expect(noneLeft.data).toEqual([{ request_count: 0, avg_latency: null }]);
  });

  it('buckets whole days by day and by week (the daily rollups) and by user, each bucket equal to the rows it sums', async () => {
    const today = Math.floor(now / 86_400_000) * 86_400_000;
    const range = { start: new Date(today - 7 * 86_400_000).toISOString(), end: new Date(today + 86_400_000).toISOString() };
    for (const granularity of ['day', 'week'] as const) {
      const answer = await analytics.query(principal, {
        metrics: ['request_count', 'usage'],
        dimensions: ['user'],
        granularity,
        time_range: range,
      });
      const { rows } = await prisma.pool.query<{ date: Date; user: string; requests: string; usage: string }>(
        `SELECT date_trunc($2, created_at, 'UTC') AS date, user_id::text AS user, count(*)::text AS requests, sum(cost)::text AS usage
         FROM generations WHERE workspace_id = $1 AND created_at >= $3::timestamptz GROUP BY 1, 2`,
        [workspaceId, granularity, range.start],
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(answer.data).toHaveLength(rows.length);
      for (const expected of rows) {
        expect(answer.data).toContainEqual({
          date: expected.date.toISOString(),
          user: expected.user,
          request_count: Number(expected.requests),
          usage: Number(expected.usage),
        });
      }
    }
  });

  it('answers activity per date, model and endpoint, by key and user, and only for its own workspace', async () => {
    const today = new Date(now).toISOString().slice(0, 10);
    const items = await analytics.activity(principal, { date: today, api_key_hash: keys[0]! });
    const { rows } = await prisma.pool.query<{ model: string; requests: string; usage: string; reasoning: string; savings: string }>(
      `SELECT model, count(*)::text AS requests, sum(cost)::text AS usage, sum(reasoning_tokens)::text AS reasoning,
         COALESCE(sum(cost_avoided - cost) FILTER (WHERE cache_hit), 0)::text AS savings FROM generations
       WHERE workspace_id = $1 AND key_hash = $2 AND created_at >= $3::date AND created_at < $3::date + 1 GROUP BY model`,
      [workspaceId, keys[0], today],
    );
    expect(
      items
        .map((item) => ({
          model: item.model,
          requests: item.requests,
          usage: item.usage,
          reasoning: item.reasoning_tokens,
          savings: item.response_cache_savings,
        }))
        .sort((a, b) => a.model.localeCompare(b.model)),
    ).toEqual(
      rows
        .map((row) => ({
          model: row.model,
          requests: Number(row.requests),
          usage: Number(row.usage),
          reasoning: Number(row.reasoning),
          savings: Number(row.savings),
        }))
        .sort((a, b) => a.model.localeCompare(b.model)),
    );
    expect(items.every((item) => item.date === today && item.endpoint_id === `${item.provider_name}/${item.model.slice(4)}`)).toBe(true);
    // Without a key or user: the per-model rollups, equal to every row of the workspace that day.
    const whole = await analytics.activity(principal, { date: today });
    const { rows: all } = await prisma.pool.query<{ model: string; requests: string; usage: string; prompt: string }>(
      `SELECT model, count(*)::text AS requests, sum(cost)::text AS usage, sum(prompt_tokens)::text AS prompt FROM generations
       WHERE workspace_id = $1 AND created_at >= $2::date AND created_at < $2::date + 1 GROUP BY model ORDER BY model`,
      [workspaceId, today],
    );
    expect(all.length).toBeGreaterThan(0);
    expect(
      whole
        .map((item) => ({ model: item.model, requests: item.requests, usage: item.usage, prompt: item.prompt_tokens }))
        .sort((a, b) => a.model.localeCompare(b.model)),
    ).toEqual(
      all.map((row) => ({ model: row.model, requests: Number(row.requests), usage: Number(row.usage), prompt: Number(row.prompt) })),
    );
    expect(await analytics.activity(principal, { date: today, user_id: randomUUID() })).toEqual([]);
    // Completed days only without a date: today's generations are not in it.
    expect((await analytics.activity(principal, {})).some((item) => item.date === today)).toBe(false);
    const grouped = await analytics.activity(principal, { date: today, group_by: 'workspace' });
    expect(grouped.every((item) => item.workspace_id === workspaceId)).toBe(true);
    await expect(analytics.activity(principal, { workspace_id: randomUUID() })).rejects.toMatchObject({ status: 404 });
    await expect(analytics.activity(principal, { date: '2020-01-01' })).rejects.toMatchObject({ status: 400 });
    await expect(analytics.activity({ ...principal, keyKind: 'standard' }, {})).rejects.toMatchObject({ status: 403 });
    const other = await analytics.query({ ...principal, workspaceId: randomUUID() }, { metrics: ['request_count'] });
    expect(other.data).toEqual([{ request_count: 0 }]);
  });

  it('counts failed requests once each, with the broken streams, per error type and in total, hourly and by whole days', async () => {
    const failure = (errorType: string, status: number, model?: string): RequestFailedEvent => ({
      failureId: randomUUID(),
      requestId: `req-${randomUUID()}`,
      workspaceId,
      keyHash: keys[0]!,
      userId: users[0]!,
      ...(model ? { model } : {}),
      errorType,
      status,
      createdAt: new Date(now).toISOString(),
    });
    const failures = [
      failure('rate_limit_exceeded', 429, 'sim/gpt-4o-mini'),
      failure('rate_limit_exceeded', 429, 'sim/gpt-4o-mini'),
      failure('rate_limit_exceeded', 429),
      failure('provider_unavailable', 503, 'sim/claude-sonnet'),
      failure('provider_unavailable', 503, 'sim/claude-sonnet'),
    ];
    // Redelivered, concurrently and again: each failure still counts once.
    await Promise.all([failures.slice(0, 3), failures.slice(2), failures].map((batch) => prisma.pool.query(insertRequestFailures(batch))));
    await prisma.pool.query(insertRequestFailures(failures.slice(1, 2)));
    const { rows } = await prisma.pool.query<{ failed: string; requests: string }>(
      `SELECT count(*) FILTER (WHERE status = 'failed')::text AS failed, count(*)::text AS requests FROM generations WHERE workspace_id = $1::uuid`,
      [workspaceId],
    );
    const brokenStreams = Number(rows[0]!.failed);
    const requests = Number(rows[0]!.requests);
    expect(brokenStreams).toBeGreaterThan(0);

    const byType = await analytics.query(principal, { metrics: ['error_count'], dimensions: ['error_type'], granularity: 'hour' });
    const sums: Record<string, number> = {};
    for (const row of byType.data) sums[String(row.error_type)] = (sums[String(row.error_type)] ?? 0) + Number(row.error_count);
    expect(sums).toEqual({ null: brokenStreams, rate_limit_exceeded: 3, provider_unavailable: 2 });

    const today = Math.floor(now / 86_400_000) * 86_400_000;
    const wholeDays = { start: new Date(today - 86_400_000).toISOString(), end: new Date(today + 86_400_000).toISOString() };
    for (const range of [{}, { time_range: wholeDays }]) {
      const total = await analytics.query(principal, { metrics: ['error_count', 'request_count', 'error_rate'], ...range });
      expect(total.data, JSON.stringify(range)).toEqual([
        {
          error_count: brokenStreams + 5,
          request_count: requests,
          error_rate: Number(((brokenStreams + 5) / (requests + 5)).toFixed(6)),
        },
      ]);
    }
    const byModel = await analytics.query(principal, {
      metrics: ['error_count'],
      dimensions: ['model'],
      filters: [{ field: 'error_type', operator: 'in', value: ['rate_limit_exceeded', 'provider_unavailable'] }],
      time_range: wholeDays,
    });
    expect(byModel.data).toEqual(
      expect.arrayContaining([
        { model: 'sim/gpt-4o-mini', error_count: 2 },
        { model: 'sim/claude-sonnet', error_count: 2 },
        { model: null, error_count: 1 },
      ]),
    );
    expect(byModel.data).toHaveLength(3);
  });
});
