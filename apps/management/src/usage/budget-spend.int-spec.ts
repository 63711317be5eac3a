import { PrismaPg } from '@prisma/adapter-pg';
import type { UsageRecordedEvent } from '@gw/contracts';
import { testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey } from '../keys/key-issuer.js';
import { UsageCounter } from './usage-counter.js';

/**
 * The budget counters kept by the usage count (issue 31 item 5): a member's and a workspace's
 * spend per period, added in the statement that inserts the ledger row, so a redelivered event
 * adds nothing, a late event adds to its own period, BYOK upstream cost apart, and a deleted
 * key's generation still counts for the workspace. `budget_headroom()` reads them.
 */
describe('budget counters in the usage count', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const counter = new UsageCounter(pool);
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.end();
  });

  const event = (
    over: Partial<UsageRecordedEvent> & Pick<UsageRecordedEvent, 'workspaceId' | 'keyHash' | 'userId'>,
  ): UsageRecordedEvent => ({
    generationId: `gen-${randomUUID()}`,
    model: 'sim/gpt-4o-mini',
    provider: 'simulator-openai',
    upstreamModel: 'gpt-4o-mini',
    status: 'succeeded',
    isByok: false,
    promptTokens: 1,
    completionTokens: 1,
    cachedTokens: 0,
    reasoningTokens: 0,
    tokensEstimated: false,
    cost: '0.25',
    upstreamCost: '0.2',
    latencyMs: 1,
    createdAt: '2026-04-15T10:00:00.000Z',
    ...over,
  });

  async function spend(workspaceId: string) {
    const { rows } = await pool.query<{ user_id: string; interval: string; period_start: string; spend: string; byok_spend: string }>(
      `SELECT user_id, interval::text, period_start::text, spend::text, byok_spend::text FROM budget_spend
       WHERE workspace_id = $1 ORDER BY user_id, interval, period_start`,
      [workspaceId],
    );
    return rows.map((row) => [row.user_id, row.interval, row.period_start, Number(row.spend), Number(row.byok_spend)]);
  }

  it('counts once per generation and period, for the workspace and the member', async () => {
    const owner = await createWorkspaceWithOwner(prisma, { workspaceName: 'Budgets', email: `${randomUUID()}@example.com`, userName: 'B' });
    const { key } = await issueKey(prisma, owner, { kind: 'standard', name: 'k' });
    const base = { workspaceId: owner.workspaceId, keyHash: key.hash, userId: owner.userId };
    const first = event(base);
    await counter.count(first);
    await counter.count(first); // redelivered
    await counter.countBatch([event({ ...base, isByok: true, cost: '0.01' }), event({ ...base, createdAt: '2026-03-31T23:59:59.000Z' })]);

    const nil = '00000000-0000-0000-0000-000000000000';
    const rows = (await spend(owner.workspaceId)).map((row) =>
      row[0] === nil ? ['workspace', ...row.slice(1)] : ['member', ...row.slice(1)],
    );
    const expected = (scope: string) => [
      [scope, 'daily', '2026-03-31', 0.25, 0],
      [scope, 'daily', '2026-04-15', 0.26, 0.2],
      [scope, 'weekly', '2026-03-30', 0.25, 0],
      [scope, 'weekly', '2026-04-13', 0.26, 0.2],
      [scope, 'monthly', '2026-03-01', 0.25, 0],
      [scope, 'monthly', '2026-04-01', 0.26, 0.2],
      [scope, 'lifetime', '1970-01-01', 0.51, 0.2],
    ];
    const sorted = (list: unknown[][]) => [...list].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    expect(sorted(rows)).toEqual(sorted([...expected('workspace'), ...expected('member')]));

    // budget_headroom: each budget against its current period, BYOK only when the workspace says so.
    await prisma.workspaceBudget.create({ data: { id: randomUUID(), workspaceId: owner.workspaceId, interval: 'monthly', limitUsd: 1 } });
    await prisma.memberBudget.create({
      data: { id: randomUUID(), workspaceId: owner.workspaceId, userId: owner.userId, interval: 'lifetime', limitUsd: 2 },
    });
    const headroom = async () =>
      (
        await pool.query<{ scope: string; spent: string; remaining: string }>(
          `SELECT scope, spent::text, remaining::text FROM budget_headroom($1, $2, $3, '2026-04-20T00:00:00Z')`,
          [owner.workspaceId, owner.userId, key.hash],
        )
      ).rows.map((row) => [row.scope, Number(row.spent), Number(row.remaining)]);
    expect(await headroom()).toEqual([
      ['workspace', 0.26, 0.74],
      ['member', 0.51, 1.49],
    ]);
    await prisma.workspace.update({ where: { id: owner.workspaceId }, data: { includeByokInBudgets: true } });
    expect(await headroom()).toEqual([
      ['workspace', 0.46, 0.54],
      ['member', 0.71, 1.29],
    ]);

    // Guardrail limits: the workspace default caps the member (lifetime here, without BYOK), one
    // assigned to the key caps the key on its own counters (monthly, with BYOK).
    await prisma.guardrail.updateMany({ where: { workspaceId: owner.workspaceId, isWorkspaceDefault: true }, data: { limitUsd: 3 } });
    const keyGuardrail = await prisma.guardrail.create({
      data: {
        id: randomUUID(),
        workspaceId: owner.workspaceId,
        name: 'k',
        limitUsd: 0.3,
        resetInterval: 'monthly',
        includeByokInBudgets: true,
      },
    });
    await prisma.guardrailKeyAssignment.create({ data: { id: randomUUID(), guardrailId: keyGuardrail.id, keyHash: key.hash } });
    expect(await headroom()).toEqual([
      ['guardrail_key', 0.46, -0.16],
      ['workspace', 0.46, 0.54],
      ['member', 0.71, 1.29],
      ['guardrail_member', 0.51, 2.49],
    ]);
  });

  it("still counts a deleted key's generation for its workspace", async () => {
    const owner = await createWorkspaceWithOwner(prisma, { workspaceName: 'Gone', email: `${randomUUID()}@example.com`, userName: 'G' });
    const { key } = await issueKey(prisma, owner, { kind: 'standard', name: 'k' });
    await prisma.apiKey.delete({ where: { hash: key.hash } });
    await counter.count(event({ workspaceId: owner.workspaceId, keyHash: key.hash, userId: owner.userId }));
    const rows = await pool.query<{ user_id: string }>('SELECT DISTINCT user_id FROM budget_spend WHERE workspace_id = $1', [
      owner.workspaceId,
    ]);
    expect(rows.rows.map((row) => row.user_id)).toEqual(['00000000-0000-0000-0000-000000000000']);
  });
});
