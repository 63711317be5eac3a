import { PrismaPg } from '@prisma/adapter-pg';
import type { UsageRecordedEvent } from '@gw/contracts';
import { testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey } from '../keys/key-issuer.js';
import { UsageCounter, type CountOutcome } from './usage-counter.js';
import { PrismaUsageCounter } from '../testing/usage-counter-reference.js';

/**
 * The one SQL statement against the Prisma transaction it replaced: two identical
 * worlds (workspaces and keys with the same settings and counters), the same batches counted
 * by each, batch by batch the same outcome and at the end the same table contents. The batches
 * hold what the counting must get right: duplicates in a batch (the last copy wins) and across
 * batches, failed generations, BYOK, batch lines and batch charges, events on both sides of a
 * midnight and of a week and month boundary, late events of a past period, buckets stamped in
 * the future, an unknown key, limits reached and a workspace running dry. Then, for the new
 * statement alone, counters checked against sums worked out by hand.
 */
describe('usage counted in one SQL statement = the Prisma transaction it replaced', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const now = new Date('2026-04-01T12:00:00.000Z');

  /** Workspaces and keys of one world, by position; the same settings in both worlds. */
  interface World {
    tag: string;
    workspaces: string[];
    users: string[];
    keys: string[];
  }

  const d = (value: string) => new Prisma.Decimal(value);
  const date = (value: string) => new Date(`${value}T00:00:00.000Z`);

  /** Keys: [workspace index, settings and counters before]. */
  const KEYS: Array<[number, Prisma.ApiKeyUpdateInput]> = [
    [0, {}],
    [0, { limit: d('0.5'), limitReset: 'daily' }],
    [0, { limit: d('3'), limitReset: 'weekly', includeByokInLimit: true }],
    [
      0,
      {
        limit: d('100'),
        limitReset: 'monthly',
        usage: d('5'),
        usageDaily: d('1'),
        dailyPeriodStart: date('2026-03-30'),
        usageWeekly: d('2'),
        weeklyPeriodStart: date('2026-03-30'),
        usageMonthly: d('3'),
        monthlyPeriodStart: date('2026-03-01'),
        byokUsage: d('0.5'),
        byokUsageDaily: d('0.25'),
        byokUsageWeekly: d('0.25'),
        byokUsageMonthly: d('0.25'),
      },
    ],
    // Buckets stamped after every event: only the totals move.
    [
      0,
      {
        limit: d('1'),
        usageDaily: d('0.75'),
        dailyPeriodStart: date('2026-04-02'),
        usageWeekly: d('0.75'),
        weeklyPeriodStart: date('2026-04-06'),
        usageMonthly: d('0.75'),
        monthlyPeriodStart: date('2026-05-01'),
      },
    ],
    [1, {}],
    [1, { disabled: true }],
    [1, { limit: d('10'), limitReset: 'daily' }],
  ];
  const CREDITS = ['1000', '1.5'];

  async function makeWorld(tag: string): Promise<World> {
    const world: World = { tag, workspaces: [], users: [], keys: [] };
    for (const credits of CREDITS) {
      const owner = await createWorkspaceWithOwner(prisma, {
        workspaceName: `Equivalence ${tag}`,
        email: `equivalence-${randomUUID()}@example.com`,
        userName: 'E',
      });
      await prisma.workspace.update({ where: { id: owner.workspaceId }, data: { creditsTotal: d(credits) } });
      world.workspaces.push(owner.workspaceId);
      world.users.push(owner.userId);
    }
    for (const [workspace, data] of KEYS) {
      const owner = { workspaceId: world.workspaces[workspace], userId: world.users[workspace] };
      const issued = await issueKey(prisma, owner, { kind: 'standard', name: 'equivalence' });
      await prisma.apiKey.update({ where: { hash: issued.key.hash }, data });
      world.keys.push(issued.key.hash);
    }
    return world;
  }

  /** An event of the abstract script: positions instead of ids, made concrete per world. */
  interface Spec {
    id: string;
    ws?: number;
    key: number;
    cost: string;
    at?: string;
    byok?: string;
    failed?: boolean;
    batchLine?: boolean;
    charge?: boolean;
  }

  const UNKNOWN_KEY = -1;

  function concrete(world: World, spec: Spec): UsageRecordedEvent {
    const ws = spec.ws ?? KEYS[spec.key]?.[0] ?? 0;
    const generationId = spec.charge ? `batch_${world.tag}${spec.id}` : `gen-${world.tag}-${spec.id}`;
    return {
      generationId,
      workspaceId: world.workspaces[ws],
      keyHash: spec.key === UNKNOWN_KEY ? `${world.tag}`.padEnd(64, 'f') : world.keys[spec.key],
      userId: world.users[ws],
      model: 'sim/gpt-4o-mini',
      provider: spec.charge ? 'batch' : 'simulator-openai',
      upstreamModel: 'gpt-4o-mini',
      status: spec.failed ? 'failed' : 'succeeded',
      isByok: spec.byok !== undefined,
      promptTokens: 10,
      completionTokens: 5,
      cachedTokens: 0,
      reasoningTokens: 0,
      tokensEstimated: false,
      cost: spec.cost,
      upstreamCost: spec.byok ?? spec.cost,
      latencyMs: 12,
      createdAt: spec.at ?? '2026-04-01T11:00:00.000Z',
      ...(spec.batchLine ? { batchId: `batch_${world.tag}line` } : {}),
      ...(spec.charge ? { kind: 'batch_charge' as const } : {}),
    };
  }

  const BATCHES: Spec[][] = [
    [
      { id: 'a1', key: 0, cost: '0.1' },
      { id: 'a2', key: 0, cost: '0.000000000000000001' },
      { id: 'a3', key: 1, cost: '0.25' },
      { id: 'a4', key: 2, cost: '0.5', byok: '1.25' },
      { id: 'a5', key: 3, cost: '0.2', byok: '0.3' },
      { id: 'a6', key: 4, cost: '0.125' },
      // Twice in one batch: counted once, the last copy.
      { id: 'a7', key: 0, cost: '0.3' },
      { id: 'a7', key: 0, cost: '0.3' },
      { id: 'a8', key: 5, cost: '0.5', failed: true },
      { id: 'a9', key: 0, cost: '9', batchLine: true },
    ],
    [
      // Redeliveries of the first batch, and more.
      { id: 'a1', key: 0, cost: '0.1' },
      { id: 'a3', key: 1, cost: '0.25' },
      { id: 'b1', key: 1, cost: '0.25' }, // key 1 reaches its daily limit
      { id: 'b2', key: 2, cost: '1', byok: '0.5', failed: true },
      { id: 'b3', key: UNKNOWN_KEY, ws: 0, cost: '0.01' },
      { id: 'c1', key: 0, cost: '2.5', charge: true },
      { id: 'c1', key: 0, cost: '2.5', charge: true },
    ],
    [
      // One key across a midnight, a week (Sun 29 Mar -> Mon 30 Mar) and a month boundary, in any order.
      { id: 'd1', key: 3, cost: '1', at: '2026-03-31T23:59:59.999Z' },
      { id: 'd2', key: 3, cost: '2', at: '2026-03-29T10:00:00.000Z', byok: '0.7' },
      { id: 'd3', key: 3, cost: '4', at: '2026-04-01T00:00:00.000Z' },
      { id: 'd4', key: 3, cost: '8', at: '2026-04-01T08:00:00.000Z', byok: '0.1' },
      { id: 'd5', key: 0, cost: '0.5', at: '2026-03-15T08:00:00.000Z' }, // late: in the totals only
      { id: 'd6', key: 4, cost: '0.25', at: '2026-03-31T08:00:00.000Z' },
      { id: 'd7', key: 7, cost: '0.5' },
      { id: 'c1', key: 0, cost: '2.5', charge: true },
    ],
    [
      // Workspace 1 (credits 1.5, 1 spent so far) runs dry: its enabled keys are refreshed.
      { id: 'e1', key: 5, cost: '0.4' },
      { id: 'e2', key: 7, cost: '0.2', byok: '3' },
      { id: 'e3', key: 0, cost: '0.01' },
    ],
    [
      // Dry already: not announced again. Key 2 over its weekly limit with BYOK: announced again.
      { id: 'f1', key: 5, cost: '0.1' },
      { id: 'f2', key: 2, cost: '0.25', byok: '2' },
      { id: 'f3', key: 6, cost: '0.125' },
      { id: 'e3', key: 0, cost: '0.01' },
    ],
    // A batch of only duplicates and batch lines.
    [
      { id: 'e1', key: 5, cost: '0.4' },
      { id: 'g1', key: 1, cost: '5', batchLine: true },
    ],
  ];

  let oldWorld: World;
  let newWorld: World;
  const oldOutcomes: CountOutcome[] = [];
  const newOutcomes: CountOutcome[] = [];

  /** An outcome with world-specific ids replaced by positions, order-free where the order is not promised. */
  const neutral = (world: World, outcome: CountOutcome) => ({
    counted: outcome.counted.map((id) => id.replace(world.tag, '*')),
    keysToRefresh: outcome.keysToRefresh.map((hash) => `key ${world.keys.indexOf(hash)}`).sort(),
  });

  async function tables(world: World) {
    const keys = await prisma.apiKey.findMany({ where: { hash: { in: world.keys } } });
    const workspaces = await prisma.workspace.findMany({ where: { id: { in: world.workspaces } } });
    const ledger = await prisma.usageLedgerEntry.findMany({
      where: { workspaceId: { in: world.workspaces } },
      orderBy: { generationId: 'asc' },
    });
    const text = (value: Prisma.Decimal | null) => value?.toFixed() ?? null;
    const day = (value: Date | null) => value?.toISOString().slice(0, 10) ?? null;
    return {
      keys: world.keys.map((hash) => {
        const key = keys.find((row) => row.hash === hash)!;
        return {
          usage: text(key.usage),
          byokUsage: text(key.byokUsage),
          daily: [text(key.usageDaily), text(key.byokUsageDaily), day(key.dailyPeriodStart)],
          weekly: [text(key.usageWeekly), text(key.byokUsageWeekly), day(key.weeklyPeriodStart)],
          monthly: [text(key.usageMonthly), text(key.byokUsageMonthly), day(key.monthlyPeriodStart)],
        };
      }),
      workspaces: world.workspaces.map((id) => text(workspaces.find((row) => row.id === id)!.usageTotal)),
      ledger: ledger.map((row) => ({
        generationId: row.generationId.replace(world.tag, '*'),
        workspace: world.workspaces.indexOf(row.workspaceId),
        key: row.keyHash.startsWith(world.tag) ? 'unknown' : world.keys.indexOf(row.keyHash),
        cost: text(row.cost),
        upstreamCost: text(row.upstreamCost),
        isByok: row.isByok,
        generatedAt: row.generatedAt.toISOString(),
      })),
    };
  }

  beforeAll(async () => {
    const tag = randomUUID().slice(0, 8);
    oldWorld = await makeWorld(`o${tag}`);
    newWorld = await makeWorld(`n${tag}`);
    const reference = new PrismaUsageCounter(prisma);
    const counter = new UsageCounter(pool);
    for (const batch of BATCHES) {
      oldOutcomes.push(
        await reference.countBatch(
          batch.map((spec) => concrete(oldWorld, spec)),
          now,
        ),
      );
      newOutcomes.push(
        await counter.countBatch(
          batch.map((spec) => concrete(newWorld, spec)),
          now,
        ),
      );
    }
  });

  afterAll(async () => {
    await pool.end();
    await prisma.$disconnect();
  });

  it('gives the same outcome, batch by batch', () => {
    expect(newOutcomes.map((outcome) => neutral(newWorld, outcome))).toEqual(oldOutcomes.map((outcome) => neutral(oldWorld, outcome)));
  });

  it('leaves the same keys, workspaces and ledger', async () => {
    const [before, after] = [await tables(oldWorld), await tables(newWorld)];
    expect(after).toEqual(before);
    expect(after.ledger.length).toBeGreaterThan(20);
  });

  it('counts what the batches add up to by hand', async () => {
    const { keys, workspaces, ledger } = await tables(newWorld);
    const outcome = newOutcomes.map((each) => neutral(newWorld, each));
    // Duplicates in and across batches, batch lines: counted once, never.
    expect(outcome[0].counted).toEqual(['gen-*-a1', 'gen-*-a2', 'gen-*-a3', 'gen-*-a4', 'gen-*-a5', 'gen-*-a6', 'gen-*-a7', 'gen-*-a8']);
    expect(outcome[1].counted).toEqual(['gen-*-b1', 'gen-*-b2', 'gen-*-b3', 'batch_*c1']);
    expect(outcome[5]).toEqual({ counted: [], keysToRefresh: [] });
    expect(ledger.filter((row) => row.generationId.endsWith('a9') || row.generationId.endsWith('g1'))).toEqual([]);
    // Key 0: a1 + a2 + a7 + c1 + d5 (late) + e3.
    expect(keys[0].usage).toBe('3.410000000000000001');
    expect(keys[0].daily).toEqual(['2.910000000000000001', '0', '2026-04-01']);
    // Key 1 reaches 0.5 daily in batch 2: announced then.
    expect(keys[1].usage).toBe('0.5');
    expect(outcome[1].keysToRefresh).toContain('key 1');
    // Key 2: weekly limit 3 with BYOK: 0.5 + 1.25, then 1 + 0.5 (failed counts too) = 3.25, then 0.25 + 2.
    expect(keys[2].weekly).toEqual(['1.75', '3.75', '2026-03-30']);
    expect(outcome[1].keysToRefresh).toContain('key 2');
    // Key 3: a5 restarted its day and month (stamped 30 March and March) and added to its week; then
    // d2 (29 March) is late for all three buckets, d1 (31 March) adds to the week only.
    expect(keys[3].usage).toBe('20.2');
    expect(keys[3].byokUsage).toBe('1.6');
    expect(keys[3].daily).toEqual(['12.2', '0.4', '2026-04-01']);
    expect(keys[3].weekly).toEqual(['15.2', '0.65', '2026-03-30']);
    expect(keys[3].monthly).toEqual(['12.2', '0.4', '2026-04-01']);
    // Key 4: buckets stamped in the future: totals only.
    expect(keys[4]).toEqual({
      usage: '0.375',
      byokUsage: '0',
      daily: ['0.75', '0', '2026-04-02'],
      weekly: ['0.75', '0', '2026-04-06'],
      monthly: ['0.75', '0', '2026-05-01'],
    });
    // Workspace 1 (credits 1.5): a8 0.5 + d7 0.5 + e1 0.4 + e2 0.2 = 1.6 -> dry in batch 4, its enabled keys announced once.
    expect(outcome[3].keysToRefresh).toEqual(['key 5', 'key 7']);
    expect(outcome[4].keysToRefresh).toEqual(['key 2']);
    expect(workspaces).toEqual(['21.245000000000000001', '1.825']);
  });
});
