import { jetstream, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/transport-node';
import { PrismaPg } from '@prisma/adapter-pg';
import { EVENTS, JETSTREAM, type KeysChangedEvent, type UsageRecordedEvent } from '@gw/contracts';
import { ResilientNatsConnection, SINGLE_NODE } from '@gw/messaging';
import { ensureUsageStream } from '@gw/usage';
import { testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey, type IssuedKey, type OwnerRef } from '../keys/key-issuer.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { UsageConsumer } from './usage-consumer.js';
import { UsageCounter } from './usage-counter.js';

/**
 * The usage consumer on the real JetStream stream USAGE and a real PostgreSQL: every
 * generation counted exactly once through duplicates, a crash mid-statement and a crash
 * between commit and ack, with exact decimal sums.
 */
describe('usage events counted exactly once', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // Its own durable name: other test files' services consume USAGE under the production name.
  const durableName = `usage-spec-${randomUUID()}`;
  let nats: ResilientNatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let consumer: UsageConsumer;
  let counter: UsageCounter;
  let owner: OwnerRef;
  let key: IssuedKey;
  const keysChanged: string[][] = [];
  const attemptsById = new Map<string, number>();
  const attempts = (generationId: string) => attemptsById.get(generationId) ?? 0;
  let keysChangedSubscription: Subscription;

  const usageEvent = (overrides: Partial<UsageRecordedEvent> = {}): UsageRecordedEvent => ({
    generationId: `gen-${randomUUID()}`,
    workspaceId: owner.workspaceId,
    keyHash: key.key.hash,
    userId: owner.userId,
    model: 'sim/gpt-4o-mini',
    provider: 'simulator-openai',
    upstreamModel: 'gpt-4o-mini',
    status: 'succeeded',
    isByok: false,
    promptTokens: 10,
    completionTokens: 5,
    cachedTokens: 0,
    reasoningTokens: 0,
    tokensEstimated: false,
    cost: '0.000001',
    upstreamCost: '0.000001',
    latencyMs: 12,
    createdAt: new Date().toISOString(),
    ...overrides,
  });

  const publish = async (event: UsageRecordedEvent | string, msgID?: string) => {
    await js.publish(EVENTS.usageRecorded, typeof event === 'string' ? event : JSON.stringify(event), msgID ? { msgID } : {});
  };

  /** Until the consumer has acked (or terminated) everything published so far. */
  const drained = async () => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const info = await jsm.consumers.info(JETSTREAM.usageStream, durableName);
      if (info.num_pending === 0 && info.num_ack_pending === 0) return info;
      if (Date.now() > deadline) throw new Error(`not drained: ${info.num_pending} pending, ${info.num_ack_pending} unacked`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const newKey = async (data: Prisma.ApiKeyUpdateInput = {}) => {
    const issued = await issueKey(prisma, owner, { kind: 'standard', name: 'metered' });
    await prisma.apiKey.update({ where: { hash: issued.key.hash }, data });
    return issued;
  };
  const counters = (hash: string) => prisma.apiKey.findUniqueOrThrow({ where: { hash } });
  const ledgerRows = (generationId: string) => prisma.usageLedgerEntry.count({ where: { generationId } });

  beforeAll(async () => {
    owner = await createWorkspaceWithOwner(prisma, {
      workspaceName: 'Metered',
      email: `metered-${randomUUID()}@example.com`,
      userName: 'M',
    });
    await prisma.workspace.update({ where: { id: owner.workspaceId }, data: { creditsTotal: new Prisma.Decimal(1000) } });
    key = await issueKey(prisma, owner, { kind: 'standard', name: 'metered' });
    nats = await ResilientNatsConnection.open({ servers: inject('natsUrl'), name: 'usage-spec' });
    jsm = await ensureUsageStream(nats.connection, SINGLE_NODE);
    js = jetstream(nats.connection);
    keysChangedSubscription = nats.connection.subscribe(EVENTS.keysChanged, {
      callback: (_error, message) => void keysChanged.push(message.json<{ data: KeysChangedEvent }>().data.keyHashes),
    });
    counter = new UsageCounter(pool);
    // Counts attempts per generation, to see redeliveries (the real counter does the work).
    const countBatch = counter.countBatch.bind(counter);
    counter.countBatch = (events, now) => {
      for (const event of events) attemptsById.set(event.generationId, (attemptsById.get(event.generationId) ?? 0) + 1);
      return countBatch(events, now);
    };
    consumer = new UsageConsumer(nats, counter, new ManagementEventsPublisher(nats), { durableName });
    consumer.onApplicationBootstrap();
    // It creates its durable in the background: `drained` reads that durable.
    const deadline = Date.now() + 30_000;
    while (!(await jsm.consumers.info(JETSTREAM.usageStream, durableName).catch(() => undefined))) {
      if (Date.now() > deadline) throw new Error(`the usage consumer ${durableName} was not created within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  afterAll(async () => {
    keysChangedSubscription?.unsubscribe();
    await jsm?.consumers.delete(JETSTREAM.usageStream, durableName).catch(() => undefined);
    await consumer?.beforeApplicationShutdown();
    await nats?.close();
    await pool.end();
    await prisma.$disconnect();
  });

  it('counts a generation delivered twice once', async () => {
    const metered = await newKey();
    const event = usageEvent({ keyHash: metered.key.hash, cost: '0.25' });
    // Two publishes without a message id: JetStream stores both, the consumer sees both.
    await publish(event);
    await publish(event);
    await drained();
    expect(await ledgerRows(event.generationId)).toBe(1);
    expect(String((await counters(metered.key.hash)).usage)).toBe('0.25');
  });

  it('leaves batch lines uncharged and counts their batch once, by its batch_charge event', async () => {
    const metered = await newKey();
    const batchId = `batch_${randomUUID().replaceAll('-', '')}`;
    const line = usageEvent({ keyHash: metered.key.hash, cost: '0.5', batchId });
    await publish(line);
    const charge = usageEvent({ keyHash: metered.key.hash, cost: '1.25', generationId: batchId, kind: 'batch_charge', provider: 'batch' });
    await publish(charge, batchId);
    await publish(charge); // a republish after a lost PubAck
    await drained();
    expect(await ledgerRows(line.generationId)).toBe(0);
    expect(await ledgerRows(batchId)).toBe(1);
    expect(String((await counters(metered.key.hash)).usage)).toBe('1.25');
  });

  it('adds up to the exact decimal sum of the costs, BYOK twins and workspace usage included', async () => {
    const workspace = await createWorkspaceWithOwner(prisma, {
      workspaceName: 'Sums',
      email: `sums-${randomUUID()}@example.com`,
      userName: 'S',
    });
    await prisma.workspace.update({ where: { id: workspace.workspaceId }, data: { creditsTotal: new Prisma.Decimal(50) } });
    const metered = await issueKey(prisma, workspace, { kind: 'standard', name: 'sums' });
    const costs = ['0.1', '0.2', '0.000000000000000001', '1.123456789012345678', '0.3', '7', '0.000000075', '0.0000006'];
    const events = costs.map((cost, index) =>
      usageEvent({
        workspaceId: workspace.workspaceId,
        userId: workspace.userId,
        keyHash: metered.key.hash,
        cost,
        isByok: index % 3 === 0,
        upstreamCost: index % 3 === 0 ? `1${cost.slice(1)}` : cost,
      }),
    );
    await Promise.all(events.map((event) => publish(event, event.generationId)));
    await drained();
    const sum = (values: string[]) => values.reduce((total, value) => total.plus(value), new Prisma.Decimal(0));
    const expectedUsage = sum(costs);
    const expectedByok = sum(events.filter((event) => event.isByok).map((event) => event.upstreamCost));
    const stored = await counters(metered.key.hash);
    expect(stored.usage.toFixed()).toBe(expectedUsage.toFixed());
    expect(stored.usageDaily.toFixed()).toBe(expectedUsage.toFixed());
    expect(stored.usageMonthly.toFixed()).toBe(expectedUsage.toFixed());
    expect(stored.byokUsage.toFixed()).toBe(expectedByok.toFixed());
    expect(stored.byokUsageWeekly.toFixed()).toBe(expectedByok.toFixed());
    const totals = await prisma.workspace.findUniqueOrThrow({ where: { id: workspace.workspaceId } });
    expect(totals.usageTotal.toFixed()).toBe(expectedUsage.toFixed());
    expect(expectedUsage.toFixed()).toBe('8.723457464012345679');
  });

  it('counts once when a crash kills the counting transaction mid-way and the event is redelivered', async () => {
    const metered = await newKey();
    const event = usageEvent({ keyHash: metered.key.hash, cost: '0.5' });
    // Hold the workspace row so the statement stops after writing the ledger and the key.
    const blocker = new pg.Client({ connectionString: databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [owner.workspaceId]);
      await publish(event, event.generationId);
      const waiting = await waitForBlockedStatement(blocker);
      // Its ledger insert and key update have run but are not committed: nothing shows yet.
      expect(await ledgerRows(event.generationId)).toBe(0);
      await blocker.query('SELECT pg_terminate_backend($1)', [waiting]);
      await blocker.query('ROLLBACK');
      await drained();
      expect(attempts(event.generationId)).toBe(2);
    } finally {
      await blocker.end();
    }
    expect(await ledgerRows(event.generationId)).toBe(1);
    expect(String((await counters(metered.key.hash)).usage)).toBe('0.5');
  });

  it('counts once when a replica committed but died before acking (the event comes again)', async () => {
    const metered = await newKey();
    const event = usageEvent({ keyHash: metered.key.hash, cost: '0.75' });
    expect((await counter.count(event)).counted).toBe(true);
    await publish(event, event.generationId);
    await drained();
    expect(await ledgerRows(event.generationId)).toBe(1);
    expect(String((await counters(metered.key.hash)).usage)).toBe('0.75');
  });

  it('terminates malformed events instead of retrying them, and goes on counting', async () => {
    const metered = await newKey();
    const malformed = usageEvent({ keyHash: metered.key.hash, cost: '0.1234567890123456789' }); // 19 decimals
    await publish('not json at all');
    await publish(JSON.stringify({ ...usageEvent(), cost: '-1' }));
    await publish(JSON.stringify({ ...usageEvent(), keyHash: 'nope' }));
    await publish(malformed);
    const good = usageEvent({ keyHash: metered.key.hash, cost: '0.01' });
    await publish(JSON.stringify({ pattern: EVENTS.usageRecorded, data: good })); // Nest's envelope is accepted too
    // Drained means every message was acked or terminated: nothing waits for a redelivery.
    await drained();
    expect(attempts(malformed.generationId)).toBe(0);
    expect(attempts(good.generationId)).toBe(1);
    expect(String((await counters(metered.key.hash)).usage)).toBe('0.01');
  });

  it('counts the events of a batch message each once, leaving out an invalid one, also when the batch comes again', async () => {
    const metered = await newKey();
    const events = ['0.1', '0.2', '0.3'].map((cost) => usageEvent({ keyHash: metered.key.hash, cost }));
    const invalid = { ...usageEvent({ keyHash: metered.key.hash }), cost: 'lots' };
    await publish(JSON.stringify({ events: [events[0], invalid, events[1]] }));
    // Regrouped on a retry: one event again, one new; nothing is counted twice.
    await publish(JSON.stringify({ events: [events[1], events[2]] }));
    await drained();
    for (const event of events) expect(await ledgerRows(event.generationId)).toBe(1);
    expect(String((await counters(metered.key.hash)).usage)).toBe('0.6');
  });

  it('puts each event in the buckets of its own time, and a late event in the totals only', async () => {
    const metered = await newKey();
    const at = (iso: string, cost: string) => usageEvent({ keyHash: metered.key.hash, cost, createdAt: iso });
    await counter.count(at('2026-03-08T23:59:59.000Z', '1')); // Sunday: week of 2 March
    await counter.count(at('2026-03-09T00:00:00.000Z', '2')); // Monday 00:00 UTC: a new day and week
    await counter.count(at('2026-03-08T10:00:00.000Z', '4')); // late, from the past day and week
    const stored = await counters(metered.key.hash);
    expect(String(stored.usage)).toBe('7');
    expect([String(stored.usageDaily), stored.dailyPeriodStart?.toISOString().slice(0, 10)]).toEqual(['2', '2026-03-09']);
    expect([String(stored.usageWeekly), stored.weeklyPeriodStart?.toISOString().slice(0, 10)]).toEqual(['2', '2026-03-09']);
    expect([String(stored.usageMonthly), stored.monthlyPeriodStart?.toISOString().slice(0, 10)]).toEqual(['7', '2026-03-01']);
  });

  it('tells the gateways when a key reaches its limit or the workspace runs out of credits', async () => {
    const limited = await newKey({ limit: new Prisma.Decimal('0.5'), limitReset: 'daily' });
    await publish(usageEvent({ keyHash: limited.key.hash, cost: '0.4' }));
    await drained();
    expect(keysChanged.flat()).not.toContain(limited.key.hash);
    await publish(usageEvent({ keyHash: limited.key.hash, cost: '0.1' }));
    await drained();
    await expect.poll(() => keysChanged.flat()).toContain(limited.key.hash);

    const poor = await createWorkspaceWithOwner(prisma, {
      workspaceName: 'Poor',
      email: `poor-${randomUUID()}@example.com`,
      userName: 'P',
    });
    await prisma.workspace.update({ where: { id: poor.workspaceId }, data: { creditsTotal: new Prisma.Decimal('1') } });
    const first = await issueKey(prisma, poor, { kind: 'standard', name: 'a' });
    const second = await issueKey(prisma, poor, { kind: 'standard', name: 'b' });
    await publish(usageEvent({ workspaceId: poor.workspaceId, userId: poor.userId, keyHash: first.key.hash, cost: '1' }));
    await drained();
    await expect.poll(() => keysChanged.some((hashes) => hashes.includes(first.key.hash) && hashes.includes(second.key.hash))).toBe(true);
  });
});

/**
 * The backend pid of the counting statement once it waits for the blocker's workspace row lock. Asked
 * outside the blocker's transaction: pg_stat_activity is a snapshot within one transaction. Matched on
 * the ledger insert near its start: pg_stat_activity keeps only the first 1 kB of a statement.
 */
async function waitForBlockedStatement(blocker: pg.Client): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    await blocker.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await blocker.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO usage_ledger%' AND pid <> pg_backend_pid()`,
    );
    if (rows[0]) return rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the counting transaction never waited for the lock');
}
