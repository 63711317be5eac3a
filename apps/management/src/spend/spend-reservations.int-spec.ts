import { PrismaPg } from '@prisma/adapter-pg';
import type { UsageRecordedEvent } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey } from '../keys/key-issuer.js';
import { UsageCounter } from '../usage/usage-counter.js';
import { SpendReservations } from './spend-reservations.js';

/**
 * Spend holds in management's database, on the real PostgreSQL, with two stores on
 * two pools standing for two management replicas: concurrent holds never exceed the limit or
 * the balance, a usage event settles its hold in the statement that counts it, a release frees
 * the rest, and a hold nobody settles lapses.
 */
describe('spend reservations', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  const pools = [new pg.Pool({ connectionString: databaseUrl, max: 10 }), new pg.Pool({ connectionString: databaseUrl, max: 10 })];
  const replicas = pools.map((pool) => new SpendReservations(pool));
  const counter = new UsageCounter(pools[0]!);

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await prisma.$disconnect();
  });

  async function world(settings: {
    credits: string;
    limit?: string;
    limitReset?: 'daily' | 'weekly' | 'monthly';
    counters?: Prisma.ApiKeyUpdateInput;
  }) {
    const tag = randomUUID();
    const owner = await createWorkspaceWithOwner(prisma, { workspaceName: tag, email: `${tag}@example.com`, userName: 'Spender' });
    await prisma.workspace.update({ where: { id: owner.workspaceId }, data: { creditsTotal: new Prisma.Decimal(settings.credits) } });
    const { key } = await issueKey(prisma, owner, { kind: 'standard', name: 'spender' });
    if (settings.limit)
      await prisma.apiKey.update({
        where: { hash: key.hash },
        data: { limit: new Prisma.Decimal(settings.limit), limitReset: settings.limitReset ?? null, ...settings.counters },
      });
    return { workspaceId: owner.workspaceId, userId: owner.userId, keyHash: key.hash };
  }

  /** A lease of exactly one call's worst case, as a replica leasing one call at a time asks. */
  const hold = (w: { workspaceId: string; keyHash: string }, amount: string, replica = 0, ttlSeconds = 600) => {
    const reservationId = randomUUID();
    return replicas[replica]!.reserve({
      reservationId,
      workspaceId: w.workspaceId,
      keyHash: w.keyHash,
      minimum: amount,
      wanted: amount,
      ttlSeconds,
    }).then(() => reservationId);
  };

  const topUp = (w: { workspaceId: string; keyHash: string }, reservationId: string, minimum: string, wanted: string, replica = 0) =>
    replicas[replica]!.reserve({ reservationId, workspaceId: w.workspaceId, keyHash: w.keyHash, minimum, wanted, ttlSeconds: 600 });

  /** 50 holds at once, alternating replicas: what was held, and the refusals' reasons. */
  async function fifty(w: { workspaceId: string; keyHash: string }, amount: string) {
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => hold(w, amount, i % 2)));
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason as GatewayError);
    for (const error of refused) expect(error).toBeInstanceOf(GatewayError);
    return { held: outcomes.length - refused.length, reasons: new Set(refused.map((error) => error.metadata?.reason)), refused };
  }

  it('holds 50 concurrent worst cases within the key limit, and refuses the rest with 402 key_limit_reached', async () => {
    const w = await world({ credits: '100', limit: '0.01' });
    const { held, reasons, refused } = await fifty(w, '0.0012');
    // 8 x 0.0012 = 0.0096 fits in 0.01, a ninth does not.
    expect(held).toBe(8);
    expect(reasons).toEqual(new Set(['key_limit_reached']));
    expect(refused[0]).toMatchObject({ status: 402, errorType: 'payment_required' });
  });

  it('counts only the current period of a key with a reset, and its BYOK usage when the key says so', async () => {
    const today = new Date(new Date().toISOString().slice(0, 10));
    const yesterday = new Date(today.getTime() - 24 * 3600 * 1000);
    const stale = await world({
      credits: '100',
      limit: '0.01',
      limitReset: 'daily',
      counters: { usage: new Prisma.Decimal('5'), usageDaily: new Prisma.Decimal('5'), dailyPeriodStart: yesterday },
    });
    // Yesterday's 5 does not count today: the whole 0.01 is there.
    await hold(stale, '0.01');
    const byok = await world({
      credits: '100',
      limit: '0.01',
      limitReset: 'daily',
      counters: {
        includeByokInLimit: true,
        usageDaily: new Prisma.Decimal('0.004'),
        byokUsageDaily: new Prisma.Decimal('0.004'),
        dailyPeriodStart: today,
      },
    });
    await expect(hold(byok, '0.0021')).rejects.toMatchObject({ status: 402, metadata: { reason: 'key_limit_reached' } });
    await hold(byok, '0.002');
  });

  it('holds 50 concurrent worst cases within the workspace balance, and refuses the rest with 402 insufficient_credits', async () => {
    const w = await world({ credits: '0.01' });
    const { held, reasons } = await fifty(w, '0.0012');
    expect(held).toBe(8);
    expect(reasons).toEqual(new Set(['insufficient_credits']));
  });

  it('settles a hold with the usage event that counts it, and frees the rest on release, in either order', async () => {
    const w = await world({ credits: '0.01', limit: '0.01' });
    for (const releaseFirst of [false, true]) {
      const id = await hold(w, '0.006');
      // Held: a second worst case of 0.006 does not fit beside it.
      await expect(hold(w, '0.006')).rejects.toMatchObject({ status: 402 });
      const event = usageEvent(w, '0.001', id);
      if (releaseFirst) await replicas[1]!.release({ reservationId: id, workspaceId: w.workspaceId, unused: '0.005' });
      await counter.count(event);
      if (!releaseFirst) await replicas[1]!.release({ reservationId: id, workspaceId: w.workspaceId, unused: '0.005' });
      const row = await prisma.spendReservation.findUnique({ where: { id } });
      expect(row?.amount.toFixed()).toBe('0');
    }
    // 0.002 spent, nothing held: 0.008 fits, 0.0081 does not.
    const workspace = await prisma.workspace.findUniqueOrThrow({ where: { id: w.workspaceId } });
    expect(workspace.usageTotal.toFixed()).toBe('0.002');
    await expect(hold(w, '0.0081')).rejects.toMatchObject({ status: 402 });
    await hold(w, '0.008');
  });

  it('keeps a settled event counted once when it is delivered again', async () => {
    const w = await world({ credits: '1' });
    const id = await hold(w, '0.5');
    const event = usageEvent(w, '0.1', id);
    await counter.count(event);
    await counter.count(event);
    expect((await prisma.spendReservation.findUniqueOrThrow({ where: { id } })).amount.toFixed()).toBe('0.4');
  });

  it('lets a hold that nobody settles or releases lapse', async () => {
    const w = await world({ credits: '0.01' });
    await hold(w, '0.01', 0, 1);
    await expect(hold(w, '0.001')).rejects.toMatchObject({ status: 402 });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await hold(w, '0.01');
    // The lapsed row is gone with the next hold of its workspace.
    expect(await prisma.spendReservation.count({ where: { workspaceId: w.workspaceId } })).toBe(1);
  });

  it('grants a lease what it wants, or half of what is free once its minimum is covered', async () => {
    const w = await world({ credits: '100', limit: '0.01' });
    const lease = randomUUID();
    expect(await topUp(w, lease, '0.001', '0.002')).toBe('0.002');
    // 0.008 free: a want of 1 gets half of it; the top-ups add to one row.
    expect(await topUp(w, lease, '0.001', '1')).toBe('0.004');
    expect(await topUp(w, lease, '0.001', '1')).toBe('0.002');
    expect(await topUp(w, lease, '0.001', '1')).toBe('0.001');
    expect(await topUp(w, lease, '0.001', '1')).toBe('0.001');
    await expect(topUp(w, lease, '0.001', '1')).rejects.toMatchObject({ status: 402, metadata: { reason: 'key_limit_reached' } });
    const rows = await prisma.spendReservation.findMany({ where: { workspaceId: w.workspaceId } });
    expect(rows.map((row) => row.amount.toFixed())).toEqual(['0.01']);
  });

  it('never grants 50 concurrent top-ups of leases on two replicas more than the limit', async () => {
    const w = await world({ credits: '100', limit: '0.01' });
    const leases = [randomUUID(), randomUUID()];
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => topUp(w, leases[i % 2]!, '0.0012', '0.0384', i % 2)));
    const granted = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [new Prisma.Decimal(o.value)] : []));
    const total = granted.reduce((sum, value) => sum.add(value), new Prisma.Decimal(0));
    expect(total.lte('0.01')).toBe(true);
    // What is left is less than one more call's minimum.
    expect(total.gt('0.0088')).toBe(true);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ status: 402 });
  });

  it('refuses to top up a released lease whose charges are still being counted', async () => {
    const w = await world({ credits: '1' });
    const lease = await hold(w, '0.1');
    // 0.04 was charged by calls whose events are not counted yet: the row keeps it.
    await replicas[0]!.release({ reservationId: lease, workspaceId: w.workspaceId, unused: '0.06' });
    await expect(topUp(w, lease, '0.1', '0.1')).rejects.toThrow(/released/);
  });

  it('holds a member within their budget across their keys, and leaves another member of the workspace served', async () => {
    const w = await world({ credits: '100' });
    await prisma.memberBudget.create({
      data: { id: randomUUID(), workspaceId: w.workspaceId, userId: w.userId, interval: 'monthly', limitUsd: '0.01' },
    });
    const owner = { workspaceId: w.workspaceId, userId: w.userId };
    const second = (await issueKey(prisma, owner, { kind: 'standard', name: 'second' })).key.hash;
    const keys = [w.keyHash, second];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => hold({ workspaceId: w.workspaceId, keyHash: keys[i % 2]! }, '0.0012', i % 2)),
    );
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(outcomes.length - refused.length).toBe(8);
    expect(new Set(refused.map((o) => (o.reason as GatewayError).metadata?.reason))).toEqual(new Set(['member_budget_reached']));
    // Another member's key of the same workspace is not capped by that budget.
    const tag = randomUUID();
    const other = await prisma.user.create({ data: { id: randomUUID(), email: `${tag}@example.com`, name: 'Other' } });
    await prisma.workspaceMember.create({ data: { workspaceId: w.workspaceId, userId: other.id, role: 'member' } });
    const otherKey = (await issueKey(prisma, { workspaceId: w.workspaceId, userId: other.id }, { kind: 'standard', name: 'other' })).key
      .hash;
    await hold({ workspaceId: w.workspaceId, keyHash: otherKey }, '0.5');
  });

  it('holds a workspace within its budget, whoever spends', async () => {
    const w = await world({ credits: '100' });
    await prisma.workspaceBudget.create({ data: { id: randomUUID(), workspaceId: w.workspaceId, interval: 'daily', limitUsd: '0.01' } });
    const { held, reasons } = await fifty(w, '0.0012');
    expect(held).toBe(8);
    expect(reasons).toEqual(new Set(['workspace_budget_reached']));
  });

  function usageEvent(
    w: { workspaceId: string; keyHash: string; userId: string },
    cost: string,
    reservationId: string,
  ): UsageRecordedEvent {
    return {
      generationId: `gen-${randomUUID()}`,
      workspaceId: w.workspaceId,
      keyHash: w.keyHash,
      userId: w.userId,
      model: 'sim/model',
      provider: 'simulator',
      upstreamModel: 'model',
      status: 'succeeded',
      isByok: false,
      promptTokens: 1,
      completionTokens: 1,
      cachedTokens: 0,
      reasoningTokens: 0,
      tokensEstimated: false,
      cost,
      upstreamCost: cost,
      latencyMs: 1,
      createdAt: new Date().toISOString(),
      reservationId,
    };
  }
});
