import { validateEnv } from '@gw/config';
import type { UsageRecordedEvent } from '@gw/contracts';
import { testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { GenerationPartitions } from './generation-partitions.service.js';
import { insertGenerations } from './generation-rows.js';

/**
 * The INSERT the consumer ran before the `unnest()` statement (Prisma's raw multi-row VALUES), kept here as the
 * reference the prepared `unnest()` statement must match row for row.
 */
function prismaInsert(events: UsageRecordedEvent[]): Prisma.Sql {
  const rows = events.map(
    (event) => Prisma.sql`(${event.generationId}, ${event.workspaceId}::uuid, ${event.keyHash}, ${event.userId}::uuid, ${event.model},
      ${event.provider}, ${event.upstreamModel}, ${event.status}::"GenerationStatus", ${event.promptTokens}, ${event.completionTokens},
      ${event.cachedTokens}, ${event.reasoningTokens}, ${event.tokensEstimated}, ${event.cost}::numeric, ${event.upstreamCost}::numeric,
      ${event.isByok}, ${event.latencyMs}, ${event.sessionId ?? null}, ${event.batchId ?? null}, ${event.attempts ?? 1},
      ${event.endpointsTried ?? []}::text[], ${event.usageDetails ? JSON.stringify(event.usageDetails) : null}::jsonb, ${new Date(event.createdAt)}, ${event.requestId ?? null}, ${event.streamed ?? null},
      ${event.finishReason ?? null}, ${event.nativeFinishReason ?? null}, ${event.upstreamId ?? null}, ${event.generationTimeMs ?? null}::int, ${event.cancelled ?? null}, ${event.serviceTier ?? null})`,
  );
  return Prisma.sql`
    INSERT INTO generations (id, workspace_id, key_hash, user_id, model, provider, upstream_model, status, prompt_tokens,
      completion_tokens, cached_tokens, reasoning_tokens, tokens_estimated, cost, upstream_cost, is_byok, latency_ms,
      session_id, batch_id, attempts, endpoints_tried, usage_details, created_at, request_id, streamed, finish_reason,
      native_finish_reason, upstream_id, generation_time_ms, cancelled, service_tier)
    VALUES ${Prisma.join(rows)}
    ON CONFLICT DO NOTHING`;
}

/**
 * Differential spec: the same events written by the old Prisma INSERT and by the
 * prepared `unnest()` statement give identical rows in every column (compared as PostgreSQL
 * prints them), failure rows, BYOK, estimated counts, odd texts and absent optionals included;
 * redeliveries insert nothing; a value PostgreSQL refuses fails both the same way.
 */
describe('generation rows: the prepared unnest() INSERT writes what the Prisma INSERT wrote', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'inference');
  let prisma: PrismaService;

  beforeAll(async () => {
    const env = validateEnv(InferenceEnv, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
    prisma = new PrismaService(env);
    // The days these rows fall on have their partitions, as the consumer makes sure before it writes.
    await new GenerationPartitions(prisma, env).ensure([
      '2026-11-27T10:11:12.345Z',
      '2026-11-27T12:00:00.5+02:00',
      '2026-01-01T00:00:00Z',
      new Date().toISOString(),
    ]);
  });

  afterAll(async () => {
    await prisma?.$disconnect();
  });

  const base = (overrides: Partial<UsageRecordedEvent>): UsageRecordedEvent => ({
    generationId: `gen-${randomUUID()}`,
    workspaceId: randomUUID(),
    keyHash: 'a'.repeat(64),
    userId: randomUUID(),
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
    cost: '0.000012345678',
    upstreamCost: '0.000012345678',
    latencyMs: 17,
    createdAt: '2026-11-27T10:11:12.345Z',
    ...overrides,
  });

  const variants: Array<Partial<UsageRecordedEvent>> = [
    {},
    // A stream broken after its first byte: billed, estimated counts, a session and the whole route.
    {
      status: 'failed',
      tokensEstimated: true,
      sessionId: 'session-1',
      requestId: 'req-0123456789abcdef',
      streamed: true,
      finishReason: 'length',
      nativeFinishReason: 'max_tokens',
      upstreamId: 'chatcmpl-upstream-1',
      generationTimeMs: 1234,
      cancelled: true,
      serviceTier: 'priority',
      attempts: 3,
      endpointsTried: ['simulator-openai/gpt-4o-mini', 'simulator-anthropic/claude', 'simulator-openai/gpt-4o'],
    },
    { isByok: true, cost: '0.0000005', upstreamCost: '0.00123', batchId: 'batch_abc', attempts: 1, endpointsTried: ['x'] },
    {
      cachedTokens: 7,
      reasoningTokens: 9,
      usageDetails: { cacheWriteTokens: 3, audioPromptTokens: 1, serverToolUse: { webSearchRequests: 2 } } as never,
    },
    // Texts an array literal must escape, and non-ASCII.
    {
      sessionId: 'quotes " back\\slash {braces}, commas',
      endpointsTried: ['a,b', 'c"d', 'e\\f', '{g}', 'NULL', '', ' spaced ', 'ünïcødé ✓'],
      model: 'sim/model "quoted"',
    },
    { endpointsTried: [], attempts: 0, cost: '0', upstreamCost: '0', promptTokens: 0, completionTokens: 0, latencyMs: 0 },
    // A creation time with an offset, and one without milliseconds.
    { createdAt: '2026-11-27T12:00:00.5+02:00' },
    { createdAt: '2026-01-01T00:00:00Z', cost: '123456789012.123456789012', upstreamCost: '1e-12' },
  ];

  /** Every column but the id, as PostgreSQL prints it, per row. */
  async function rowsOf(ids: string[]): Promise<Map<string, string>> {
    const result = await prisma.pool.query<{ id: string; row: string }>(
      `SELECT id, (workspace_id, key_hash, user_id, model, provider, upstream_model, status, prompt_tokens, completion_tokens,
         cached_tokens, reasoning_tokens, tokens_estimated, cost, upstream_cost, is_byok, latency_ms, session_id, batch_id,
         attempts, endpoints_tried, usage_details, created_at, request_id, streamed, finish_reason, native_finish_reason,
         upstream_id, generation_time_ms, cancelled, service_tier)::text AS row
       FROM generations WHERE id = ANY($1::text[])`,
      [ids],
    );
    return new Map(result.rows.map((row) => [row.id, row.row]));
  }

  it('writes identical rows for the same events, and nothing on a redelivery', async () => {
    const viaPrisma = variants.map((variant) => base(variant));
    const viaUnnest = viaPrisma.map((event) => ({ ...event, generationId: `${event.generationId}-unnest` }));

    await prisma.$executeRaw(prismaInsert(viaPrisma));
    await prisma.pool.query(insertGenerations(viaUnnest));

    const before = await rowsOf(viaPrisma.map((event) => event.generationId));
    const after = await rowsOf(viaUnnest.map((event) => event.generationId));
    expect(before.size).toBe(variants.length);
    for (const event of viaPrisma) {
      expect(after.get(`${event.generationId}-unnest`)).toBe(before.get(event.generationId));
    }

    // A redelivery, alone or with a new event (and that one twice in the batch): only the new one is inserted.
    const fresh = base({ status: 'failed' });
    await prisma.pool.query(insertGenerations([...viaUnnest, fresh, fresh]));
    expect((await rowsOf([fresh.generationId])).size).toBe(1);
    expect(await rowsOf(viaUnnest.map((event) => event.generationId))).toEqual(after);
  });

  it('sends the same statement text whatever the number of rows (one prepared statement)', () => {
    const one = insertGenerations([base({})]);
    const many = insertGenerations(Array.from({ length: 1_500 }, () => base({})));
    expect(many.text).toBe(one.text);
    expect(many.name).toBe(one.name);
    expect(many.values).toHaveLength(50);
  });

  it('fails on a value PostgreSQL refuses as the Prisma INSERT did (NUL in a text: 22021)', async () => {
    const poison = base({ sessionId: 'a\u0000b' });
    const prismaError = await prisma.$executeRaw(prismaInsert([poison])).then(
      () => undefined,
      (error: unknown) => error,
    );
    const unnestError = (await prisma.pool.query(insertGenerations([poison])).then(
      () => undefined,
      (error: unknown) => error,
    )) as { code?: string } | undefined;
    expect(prismaError).toBeDefined();
    expect(unnestError?.code).toBe('22021');
    expect((await rowsOf([poison.generationId])).size).toBe(0);
  });
});
