import { validateEnv } from '@gw/config';
import type { Principal, UsageRecordedEvent } from '@gw/contracts';
import { DEV_CATALOG_PATHS, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CatalogService } from '../catalog/catalog.service.js';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { InferenceEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { GenerationLister } from './generation-list.service.js';
import { GENERATION_ROW_WAIT_MS, GenerationReader } from './generation-reader.service.js';
import { insertGenerations } from './generation-rows.js';

/** The reader and the list on a real database: the row written a moment after the read starts, workspaces and intern keys. */
describe('GenerationReader and GenerationLister', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'inference');
  let prisma: PrismaService;
  let reader: GenerationReader;
  let lister: GenerationLister;
  const workspaceId = randomUUID();
  const principal = (overrides: Partial<Principal> = {}): Principal => ({
    workspaceId,
    keyHash: 'b'.repeat(64),
    keyKind: 'standard',
    userId: randomUUID(),
    hasPersonalIdentity: false,
    ...overrides,
  });
  const event = (overrides: Partial<UsageRecordedEvent> = {}): UsageRecordedEvent => ({
    generationId: newGenerationId(),
    workspaceId,
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
    createdAt: new Date().toISOString(),
    ...overrides,
  });
  const write = (row: UsageRecordedEvent) => prisma.pool.query(insertGenerations([row]));
  const timed = async <T>(work: Promise<T>): Promise<{ value?: T; error?: { status?: number }; ms: number }> => {
    const started = performance.now();
    const outcome = await work.then(
      (value) => ({ value }),
      (error: unknown) => ({ error: error as { status?: number } }),
    );
    return { ...outcome, ms: performance.now() - started };
  };

  beforeAll(() => {
    const env = validateEnv(InferenceEnv, {
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      MODEL_CATALOG_PATHS: DEV_CATALOG_PATHS.join(','),
    });
    prisma = new PrismaService(env);
    const catalog = new CatalogService(env);
    reader = new GenerationReader(prisma, catalog);
    lister = new GenerationLister(prisma, reader, catalog);
  });

  afterAll(async () => {
    await prisma?.$disconnect();
  });

  it('answers a read that arrived before its row, once the row is written', async () => {
    const row = event();
    const read = timed(reader.get(principal(), row.generationId));
    await sleep(300);
    await write(row);
    const { value, ms } = await read;
    expect(value).toMatchObject({ id: row.generationId, total_cost: 0.000012345678, api_type: 'completions' });
    expect(ms).toBeGreaterThanOrEqual(290);
  });

  it('gives up on a recent id after the bounded wait, and at once on an id of no recent shape', async () => {
    const waited = await timed(reader.get(principal(), newGenerationId()));
    expect(waited.error?.status).toBe(404);
    expect(waited.ms).toBeGreaterThanOrEqual(GENERATION_ROW_WAIT_MS - 60);
    expect(waited.ms).toBeLessThan(GENERATION_ROW_WAIT_MS + 10_000);
    const foreign = await timed(reader.get(principal(), 'gen-unknown'));
    expect(foreign.error?.status).toBe(404);
    expect(foreign.ms).toBeLessThan(GENERATION_ROW_WAIT_MS - 60);
  });

  it("404s another workspace's row at once, and to an intern key a row another key made", async () => {
    const row = event();
    await write(row);
    const other = await timed(reader.get(principal({ workspaceId: randomUUID() }), row.generationId));
    expect(other.error?.status).toBe(404);
    expect(other.ms).toBeLessThan(GENERATION_ROW_WAIT_MS - 60);
    await expect(reader.get(principal({ keyKind: 'intern', internId: 'intern-1' }), row.generationId)).rejects.toMatchObject({
      status: 404,
    });
    await expect(reader.get(principal({ keyKind: 'intern', keyHash: row.keyHash }), row.generationId)).resolves.toMatchObject({
      id: row.generationId,
    });
    await expect(reader.get(principal({ keyKind: 'management' }), row.generationId)).resolves.toMatchObject({ id: row.generationId });
  });

  it('lists to an intern key only the generations it made, whatever key it names', async () => {
    const listWorkspace = randomUUID();
    const mine = event({ workspaceId: listWorkspace, keyHash: 'c'.repeat(64) });
    const theirs = event({ workspaceId: listWorkspace, keyHash: 'd'.repeat(64) });
    await prisma.pool.query(insertGenerations([mine, theirs]));
    const intern = principal({ workspaceId: listWorkspace, keyKind: 'intern', keyHash: mine.keyHash });
    const ids = async (who: Principal, query: object) => (await lister.list(who, query)).data.map((generation) => generation.id);
    expect(await ids(intern, {})).toEqual([mine.generationId]);
    expect(await ids(intern, { key_hash: theirs.keyHash })).toEqual([]);
    expect((await ids(principal({ workspaceId: listWorkspace }), {})).sort()).toEqual([mine.generationId, theirs.generationId].sort());
    await expect(lister.list(intern, { cursor: Buffer.from('not a cursor').toString('base64url') })).rejects.toMatchObject({ status: 400 });
  });

  it('filters by user, status, finish reason, API type and cost above, each alone and together', async () => {
    const listWorkspace = randomUUID();
    const alice = randomUUID();
    const made = [
      event({ workspaceId: listWorkspace, userId: alice, finishReason: 'stop', cost: '0.000100000000' }),
      event({ workspaceId: listWorkspace, userId: alice, status: 'failed', finishReason: 'error', cost: '0.000000000001' }),
      event({ workspaceId: listWorkspace, finishReason: 'length', cost: '0.000100000001' }),
      event({ workspaceId: listWorkspace, model: 'sim/text-embedding-3-small', cost: '0.000000000002' }),
    ];
    await prisma.pool.query(insertGenerations(made));
    const who = principal({ workspaceId: listWorkspace });
    const ids = async (query: object) => (await lister.list(who, query)).data.map((generation) => generation.id).sort();
    const of = (...indexes: number[]) => indexes.map((index) => made[index]!.generationId).sort();
    expect(await ids({ user_id: alice })).toEqual(of(0, 1));
    expect(await ids({ status: 'failed' })).toEqual(of(1));
    expect(await ids({ finish_reason: 'length' })).toEqual(of(2));
    expect(await ids({ api_type: 'embeddings' })).toEqual(of(3));
    expect(await ids({ api_type: 'completions' })).toEqual(of(0, 1, 2));
    expect(await ids({ cost_gt: '0.0001' })).toEqual(of(2));
    expect(await ids({ cost_gt: '0.000000000001' })).toEqual(of(0, 2, 3));
    expect(await ids({ user_id: alice, status: 'succeeded', cost_gt: '0' })).toEqual(of(0));
    const view = (await lister.list(who, { finish_reason: 'stop' })).data[0]!;
    expect(view.finish_reason).toBe('stop');
    // An export reads pages larger than the public limit.
    expect((await lister.list(who, {}, 3)).data).toHaveLength(3);
  });
});
