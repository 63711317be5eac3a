import type { INestMicroservice } from '@nestjs/common';
import { validateEnv } from '@gw/config';
import { JETSTREAM, type Principal, type UsageRecordedEvent } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { bootstrapService, ResilientNatsConnection, SINGLE_NODE } from '@gw/messaging';
import { ensureUsageStream } from '@gw/usage';
import { principalFixture, testDatabaseUrl } from '@gw/testing';
import type { JetStreamManager } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppModule } from '../app.module.js';
import { ManualClock } from '../clock/clock.js';
import { BatchEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { costOf, FakePeers } from '../testing/fake-peers.js';
import { BatchRunner } from '../worker/batch-runner.service.js';
import { BatchSweeper } from '../worker/batch-sweeper.service.js';
import { BatchesService } from './batches.service.js';

const LEASE_MS = 60_000;
const HOUR = 3_600_000;

interface Replica {
  app: INestMicroservice;
  batches: BatchesService;
  runner: BatchRunner;
  sweeper: BatchSweeper;
}

/**
 * The batch service against real PostgreSQL and NATS (issue 13): two replicas sharing the work
 * under leases, a replica dying mid-batch, the transitions, expiry and retention moved by the
 * injectable clock, and the cost guard's single charge under concurrent polls.
 */
describe('batches run by the service', () => {
  const clock = new ManualClock(new Date('2026-11-23T08:00:00.000Z'));
  let nats: ResilientNatsConnection;
  let peers: FakePeers;
  let jsm: JetStreamManager;
  let a: Replica;
  let b: Replica;
  let prisma: PrismaService;

  async function replica(): Promise<Replica> {
    const env = validateEnv(BatchEnv, {
      DATABASE_URL: testDatabaseUrl(inject('databasePrefix'), 'batch'),
      NATS_URL: inject('natsUrl'),
      LOG_LEVEL: 'silent',
      BATCH_WORKER: 'false',
      BATCH_NATIVE: 'false',
      BATCH_POLL_MS: '20',
      BATCH_LEASE_MS: String(LEASE_MS),
      BATCH_CONCURRENCY: '4',
      BATCH_WORKSPACE_CONCURRENCY: '8',
    });
    const app = await bootstrapService(AppModule.forRoot(env, { clock }), { queue: 'batch', natsUrl: inject('natsUrl') });
    return { app, batches: app.get(BatchesService), runner: app.get(BatchRunner), sweeper: app.get(BatchSweeper) };
  }

  const principal = (): Principal => principalFixture('d'.repeat(64), { workspaceId: randomUUID(), userId: randomUUID() });

  async function submit(
    who: Principal,
    lines: number,
    endpoint: '/v1/chat/completions' | '/v1/embeddings' = '/v1/chat/completions',
  ): Promise<string> {
    const { id } = await a.batches.create({ principal: who, endpoint, model: 'sim/model', completionWindow: '24h' });
    const body = (n: number) =>
      endpoint === '/v1/embeddings' ? { input: `${id}-line-${n}` } : { messages: [{ role: 'user', content: `${id}-line-${n}` }] };
    for (let start = 0; start < lines; start += 500) {
      const chunk = Array.from({ length: Math.min(500, lines - start) }, (_, offset) => ({
        index: start + offset,
        custom_id: `c-${start + offset}`,
        body: body(start + offset),
      }));
      await a.batches.append({ principal: who, batchId: id, lines: chunk });
    }
    await a.batches.submit(who, id, lines);
    await a.sweeper.sweep(); // validating -> in_progress
    return id;
  }

  async function until(condition: () => Promise<boolean>, ms = 20_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await condition())) {
      if (Date.now() > end) throw new Error('condition not reached in time');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  const lineRows = (batchId: string) => prisma.batchRequest.findMany({ where: { batchId }, orderBy: { lineNumber: 'asc' } });
  const asked = (batchId: string) => [...peers.asked].filter(([text]) => text.startsWith(batchId));

  async function charges(batchId: string): Promise<UsageRecordedEvent[]> {
    const info = await jsm.streams.info(JETSTREAM.usageStream);
    const found: UsageRecordedEvent[] = [];
    for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(JETSTREAM.usageStream, { seq }).catch(() => null);
      const event = message?.json<UsageRecordedEvent>();
      if (event?.generationId === batchId) found.push(event);
    }
    return found;
  }

  beforeAll(async () => {
    nats = await ResilientNatsConnection.open({ servers: inject('natsUrl'), name: 'batches-int-spec' });
    peers = new FakePeers(nats.connection);
    jsm = await ensureUsageStream(nats.connection, SINGLE_NODE);
    await nats.connection.flush();
    a = await replica();
    b = await replica();
    prisma = a.app.get(PrismaService);
  });

  afterAll(async () => {
    await Promise.all([a?.runner.stop(), b?.runner.stop()]);
    peers?.release();
    await a?.app.close();
    await b?.app.close();
    peers?.close();
    await nats?.close();
  });

  it('two replicas run 300 lines of two workspaces: each line once, counts equal the results, cost the exact sum', async () => {
    const first = await submit(principal(), 200);
    const second = await submit(principal(), 100);
    peers.delayMs = 2;
    a.runner.start();
    b.runner.start();
    await until(
      async () =>
        (await prisma.batchRequest.count({ where: { batchId: { in: [first, second] }, status: { in: ['pending', 'running'] } } })) === 0,
    );
    await Promise.all([a.runner.stop(), b.runner.stop()]);
    peers.delayMs = 0;
    expect(a.runner.finished).toBeGreaterThan(0);
    expect(b.runner.finished).toBeGreaterThan(0);
    for (const [batchId, total] of [
      [first, 200],
      [second, 100],
    ] as const) {
      const lines = asked(batchId);
      expect(lines).toHaveLength(total);
      expect(lines.every(([, times]) => times === 1)).toBe(true);
      await a.sweeper.sweep();
      const row = await prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
      expect(row.status).toBe('completed');
      expect([row.totalCount, row.completedCount, row.failedCount]).toEqual([total, total, 0]);
      const stored = await lineRows(batchId);
      expect(stored.filter((line) => line.response !== null)).toHaveLength(total);
      const expected = stored.reduce(
        (sum, line) => sum.add(new Prisma.Decimal(String(costOf(`${batchId}-line-${line.lineNumber}`)))),
        new Prisma.Decimal(0),
      );
      expect(row.cost!.toFixed()).toBe(expected.toFixed());
      expect(row.finalizedAt).toEqual(clock.now());
    }
  });

  it('shares a replica fairly: a small batch of another workspace is not queued behind a big one', async () => {
    const big = await submit(principal(), 300);
    const small = await submit(principal(), 20);
    peers.delayMs = 3;
    a.runner.start();
    await until(async () => (await prisma.batchRequest.count({ where: { batchId: small, status: 'completed' } })) === 20);
    const bigDone = await prisma.batchRequest.count({ where: { batchId: big, status: 'completed' } });
    await until(async () => (await prisma.batchRequest.count({ where: { batchId: big, status: 'completed' } })) === 300);
    await a.runner.stop();
    peers.delayMs = 0;
    // Half the slots each while both run: the small one ends long before the big one.
    expect(bigDone).toBeLessThan(100);
    await a.sweeper.sweep();
  });

  it('a replica killed mid-batch loses nothing: its leased lines run again on the other one once the lease ends, and its late answers are dropped', async () => {
    const who = principal();
    const batchId = await submit(who, 20);
    a.runner.finished = 0;
    b.runner.finished = 0;
    peers.holding = true;
    a.runner.start();
    await until(async () => peers.held.length === 4);
    // "Killed": it claims and renews nothing any more; its 4 lines sit at the provider.
    void a.runner.stop();
    peers.holding = false;
    b.runner.start();
    await until(async () => (await prisma.batchRequest.count({ where: { batchId, status: 'completed' } })) === 16);
    expect(await prisma.batchRequest.count({ where: { batchId, status: 'running', leaseOwner: a.runner.owner } })).toBe(4);
    clock.advance(LEASE_MS + 1);
    await a.sweeper.sweep(); // the expired leases' lines are pending again
    await until(async () => (await prisma.batchRequest.count({ where: { batchId, status: 'completed' } })) === 20);
    peers.release(); // the dead replica's answers arrive late
    await a.runner.stop();
    await b.runner.stop();
    expect(a.runner.finished).toBe(0);
    expect(b.runner.finished).toBe(20);
    await a.sweeper.sweep();
    const row = await prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
    expect([row.status, row.completedCount, row.failedCount]).toEqual(['completed', 20, 0]);
    const view = await a.batches.get(who, batchId);
    expect(view.results).toHaveLength(20);
    expect(new Set(view.results!.map((item) => item.custom_id)).size).toBe(20);
    expect(view.request_counts).toEqual({ total: 20, completed: 20, failed: 0 });
  });

  it('follows the transition table: cancel keeps finished lines and never runs the others; a running batch cannot be deleted (409)', async () => {
    const who = principal();
    const batchId = await submit(who, 10);
    peers.holding = true;
    b.runner.start();
    await until(async () => peers.held.length === 4);
    const cancelling = await a.batches.cancel(who, batchId);
    expect(cancelling.status).toBe('cancelling');
    await expect(a.batches.delete(who, batchId)).rejects.toMatchObject({ status: 409 });
    await a.sweeper.sweep();
    expect((await prisma.batch.findUniqueOrThrow({ where: { id: batchId } })).status).toBe('cancelling'); // 4 still running
    peers.holding = false;
    peers.release();
    await until(async () => (await prisma.batchRequest.count({ where: { batchId, status: 'completed' } })) === 4);
    await b.runner.stop();
    await a.sweeper.sweep();
    const view = await a.batches.get(who, batchId);
    expect(view.status).toBe('cancelled');
    expect(view.request_counts).toEqual({ total: 10, completed: 4, failed: 0 });
    expect(view.results).toHaveLength(4);
    expect(asked(batchId)).toHaveLength(4);
    await expect(a.batches.cancel(who, batchId)).resolves.toMatchObject({ status: 'cancelled' });
    const deleted = await a.batches.delete(who, batchId);
    expect(deleted).toEqual({ id: batchId, object: 'batch', deletion: { service: 'deleted' } });
    await expect(a.batches.get(who, batchId)).rejects.toMatchObject({ status: 404 });
  });

  it('expires at 24 h on the clock: lines not run get batch_expired, finished ones are kept and billed; results go after 30 days (410)', async () => {
    const who = principal();
    const batchId = await submit(who, 6);
    // 4 lines run (one claim's worth), then the worker stops: 2 are left when the window closes.
    peers.holding = true;
    a.runner.start();
    await until(async () => peers.held.length === 4);
    const stopping = a.runner.stop();
    peers.holding = false;
    peers.release();
    await stopping;
    const done = await prisma.batchRequest.count({ where: { batchId, status: 'completed' } });
    expect(done).toBe(4);
    await a.sweeper.sweep();
    expect((await a.batches.get(who, batchId)).status).toBe('in_progress');
    clock.advance(24 * HOUR - 1);
    await a.sweeper.sweep();
    expect((await a.batches.get(who, batchId)).status).toBe('in_progress');
    clock.advance(1);
    await a.sweeper.sweep();
    const view = await a.batches.get(who, batchId);
    expect(view.status).toBe('expired');
    expect(view.request_counts).toEqual({ total: 6, completed: done, failed: 6 - done });
    const expired = view.results!.filter((item) => item.error?.type === 'batch_expired');
    expect(expired).toHaveLength(6 - done);
    expect(view.usage.prompt_tokens).toBe(10 * done);
    expect(view.usage.cost).toBeGreaterThan(0);
    clock.advance(30 * 24 * HOUR - 24 * HOUR - 1);
    await a.sweeper.sweep();
    await expect(a.batches.get(who, batchId)).resolves.toMatchObject({ status: 'expired' });
    clock.advance(1);
    await expect(a.batches.get(who, batchId)).rejects.toMatchObject({ status: 410 });
    await a.sweeper.sweep();
    expect(await prisma.batchRequest.count({ where: { batchId } })).toBe(0);
    await expect(a.batches.get(who, batchId)).rejects.toMatchObject({ status: 410 });
  });

  it('cost guard: 402 with metadata and no charge while the balance is short; after a top-up, two concurrent polls charge exactly once', async () => {
    const who = principal();
    const batchId = await submit(who, 5);
    a.runner.start();
    await until(async () => (await prisma.batchRequest.count({ where: { batchId, status: 'completed' } })) === 5);
    await a.runner.stop();
    peers.credits = { total_credits: 1, total_usage: 1 - 0.0001 }; // 0.0001 left, the batch costs more
    await a.sweeper.sweep(); // completes it; the sweep's charge finds the balance short
    const row = await prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
    expect(row.status).toBe('completed');
    expect(row.chargedAt).toBeNull();
    const refused = await a.batches.get(who, batchId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).status).toBe(402);
    const metadata = (refused as GatewayError).metadata as { batch: { id: string; results: unknown; status: string } };
    expect(metadata.batch).toMatchObject({ id: batchId, status: 'completed', results: null });
    expect((await prisma.batch.findUniqueOrThrow({ where: { id: batchId } })).chargedAt).toBeNull();
    expect(await charges(batchId)).toHaveLength(0);

    peers.credits = { total_credits: 10, total_usage: 1 };
    const [one, two] = await Promise.all([a.batches.get(who, batchId), b.batches.get(who, batchId)]);
    expect(one.results).toHaveLength(5);
    expect(two.results).toHaveLength(5);
    await a.batches.get(who, batchId);
    const taken = await charges(batchId);
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatchObject({ kind: 'batch_charge', workspaceId: who.workspaceId, cost: row.cost!.toFixed(), promptTokens: 50 });
    const after = await prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
    expect(after.chargedAt).not.toBeNull();
    expect(after.chargePublishedAt).not.toBeNull();
  });

  it('refuses to open a batch with the 402 of the spend reservation (a member over budget), storing nothing', async () => {
    const who = principal();
    peers.spendRefusal = new GatewayError(402, "This member's budget for this period has not enough left", {
      errorType: 'payment_required',
      metadata: { reason: 'member_budget_reached' },
    });
    try {
      const refused = await a.batches
        .create({ principal: who, endpoint: '/v1/chat/completions', model: 'sim/model', completionWindow: '24h' })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(GatewayError);
      expect((refused as GatewayError).status).toBe(402);
      expect((refused as GatewayError).metadata).toMatchObject({ reason: 'member_budget_reached' });
      expect(await prisma.batch.count({ where: { workspaceId: who.workspaceId } })).toBe(0);
    } finally {
      peers.spendRefusal = undefined;
    }
    // Served again once the reservation grants: the batch opens.
    await expect(
      a.batches.create({ principal: who, endpoint: '/v1/chat/completions', model: 'sim/model', completionWindow: '24h' }),
    ).resolves.toMatchObject({ id: expect.stringMatching(/^batch_/) });
  });

  it('charges a finished batch when it ends, with nobody reading it, once even when reads race the sweep', async () => {
    const who = principal();
    const batchId = await submit(who, 3);
    a.runner.start();
    await until(async () => (await prisma.batchRequest.count({ where: { batchId, status: 'completed' } })) === 3);
    await a.runner.stop();
    peers.credits = { total_credits: 10, total_usage: 1 };
    await Promise.all([a.sweeper.sweep(), b.sweeper.sweep(), a.batches.get(who, batchId), b.batches.get(who, batchId)]);
    await a.sweeper.sweep();
    const row = await prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
    expect(row.status).toBe('completed');
    expect(row.chargedAt).not.toBeNull();
    const taken = await charges(batchId);
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatchObject({ kind: 'batch_charge', cost: row.cost!.toFixed() });
  });

  it('lists newest first with a cursor and status filters; usage sums per §2.1.2', async () => {
    const who = principal();
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      ids.push(await submit(who, 1, '/v1/embeddings'));
      clock.advance(1_000);
    }
    const page = await a.batches.list({ principal: who, limit: 2 });
    expect(page).toMatchObject({ object: 'list', first_id: ids[2], last_id: ids[1], has_more: true });
    expect(page.data.every((item) => item.results === null)).toBe(true);
    const next = await a.batches.list({ principal: who, limit: 2, after: ids[1] });
    expect(next.data.map((item) => item.id)).toEqual([ids[0]]);
    expect(next.has_more).toBe(false);
    expect((await a.batches.list({ principal: who, limit: 10, status: ['completed'] })).data).toHaveLength(0);
    expect((await a.batches.list({ principal: who, limit: 10, status: ['in_progress'] })).data).toHaveLength(3);
    const createdAt = Math.floor(clock.now().getTime() / 1000);
    expect((await a.batches.list({ principal: who, limit: 10, createdBefore: createdAt - 2 })).data.map((item) => item.id)).toEqual([
      ids[0],
    ]);
  });
});
