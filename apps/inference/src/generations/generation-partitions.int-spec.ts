import { validateEnv } from '@gw/config';
import type { UsageRecordedEvent } from '@gw/contracts';
import { testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { InferenceEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { GenerationPartitions } from './generation-partitions.service.js';
import { insertGenerations } from './generation-rows.js';

const DAY_MS = 86_400_000;

/** Daily partitions on a real database: created for the days rows need, dropped whole past retention, rollups kept. */
describe('generation partitions', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'inference');
  let prisma: PrismaService;
  let env: InferenceEnv;
  const workspaceId = randomUUID();
  const event = (createdAt: string): UsageRecordedEvent => ({
    generationId: newGenerationId(),
    workspaceId,
    keyHash: 'e'.repeat(64),
    userId: randomUUID(),
    model: 'sim/gpt-4o-mini',
    provider: 'simulator-openai',
    upstreamModel: 'gpt-4o-mini',
    status: 'succeeded',
    isByok: false,
    promptTokens: 1,
    completionTokens: 2,
    cachedTokens: 0,
    reasoningTokens: 0,
    tokensEstimated: false,
    cost: '0.000000000007',
    upstreamCost: '0.000000000007',
    latencyMs: 3,
    createdAt,
  });

  beforeAll(() => {
    env = validateEnv(InferenceEnv, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', GENERATION_RETENTION_DAYS: '30' });
    prisma = new PrismaService(env);
  });

  afterAll(async () => {
    await prisma?.$disconnect();
  });

  const partitions = async () =>
    (
      await prisma.pool.query<{ name: string }>(
        `SELECT child.relname AS name FROM pg_inherits JOIN pg_class child ON child.oid = pg_inherits.inhrelid
         WHERE pg_inherits.inhparent = 'generations'::regclass ORDER BY 1`,
      )
    ).rows.map((row) => row.name);

  it('drops the partitions of days past retention whole, keeps their rollups, and reads what remains', async () => {
    const maintainer = new GenerationPartitions(prisma, env);
    const now = Date.now();
    const old = new Date(now - 40 * DAY_MS).toISOString();
    const recent = new Date(now - 2 * DAY_MS).toISOString();
    const events = [event(old), event(old), event(recent)];
    // Two writers asking for the same days at once (two replicas) create each partition once.
    await Promise.all([
      maintainer.ensure(events.map((item) => item.createdAt)),
      new GenerationPartitions(prisma, env).ensure([old, recent]),
    ]);
    await prisma.pool.query(insertGenerations(events));
    const oldName = `generations_${old.slice(0, 10).replaceAll('-', '')}`;
    expect(await partitions()).toContain(oldName);

    const round = await maintainer.maintain(now);
    expect(round?.dropped).toContain(oldName);
    expect(await partitions()).not.toContain(oldName);
    const today = new Date(now).toISOString().slice(0, 10).replaceAll('-', '');
    expect(await partitions()).toContain(`generations_${today}`);
    const rows = await prisma.pool.query('SELECT id FROM generations WHERE workspace_id = $1', [workspaceId]);
    expect(rows.rows.map((row: { id: string }) => row.id)).toEqual([events[2]!.generationId]);
    // The rollups still count all three (kept longer than the rows).
    const rollups = await prisma.pool.query<{ requests: string }>(
      'SELECT sum(requests)::text AS requests FROM generation_rollups WHERE workspace_id = $1',
      [workspaceId],
    );
    expect(rollups.rows[0]!.requests).toBe('3');

    // A second maintainer while the first holds the round skips it.
    const client = await prisma.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(31004)');
      expect(await new GenerationPartitions(prisma, env).maintain(now)).toBeNull();
      await client.query('SELECT pg_advisory_unlock(31004)');
    } finally {
      client.release();
    }
  });
});
