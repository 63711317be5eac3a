import type { INestMicroservice } from '@nestjs/common';
import { validateEnv } from '@gw/config';
import { BatchesChanged, type BatchesChangedEvent, type Principal } from '@gw/contracts';
import { bootstrapService, ResilientNatsConnection } from '@gw/messaging';
import { createTestDatabases, dropTestDatabases, principalFixture, PrivateNatsServer, runPrefix, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppModule } from '../app.module.js';
import { BatchesService } from '../batches/batches.service.js';
import { BatchEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { FakePeers } from '../testing/fake-peers.js';
import { BatchRunner } from './batch-runner.service.js';
import { BatchSignals } from './batch-signals.js';
import { BatchSweeper } from './batch-sweeper.service.js';
import { BatchWakeEvents } from './batch-wake-events.js';
import { LineClaims } from './line-claims.js';

/** Far longer than the test's bounds: only `events.batches.changed` can explain a prompt start. */
const IDLE_POLL_MS = 60_000;
const LINES = 40;

interface Replica {
  app: INestMicroservice;
  batches: BatchesService;
  runner: BatchRunner;
  sweeper: BatchSweeper;
}

/**
 * A batch submitted through a replica that runs no worker is started and run
 * at once by the idle worker replicas, told by `events.batches.changed`, and a worker that did not
 * start it is woken by the one that did. Real PostgreSQL (databases of this file's own, so no other
 * file's runners claim these lines) and a private nats-server (no other file's fake inference).
 */
describe('batch wake-ups across replicas', () => {
  const prefix = runPrefix('batchwake');
  let server: PrivateNatsServer;
  let probe: ResilientNatsConnection;
  let peers: FakePeers;
  let api: Replica;
  let workers: Replica[] = [];
  let prisma: PrismaService;
  const sweeps = vi.spyOn(BatchSweeper.prototype, 'sweep');
  const claims = vi.spyOn(LineClaims.prototype, 'claim');

  function env(worker: boolean): BatchEnv {
    return validateEnv(BatchEnv, {
      DATABASE_URL: testDatabaseUrl(prefix, 'batch'),
      NATS_URL: server.url,
      LOG_LEVEL: 'silent',
      BATCH_WORKER: String(worker),
      BATCH_NATIVE: 'false',
      BATCH_POLL_MS: '50',
      BATCH_IDLE_POLL_MS: String(IDLE_POLL_MS),
      BATCH_CONCURRENCY: '4',
      BATCH_WORKSPACE_CONCURRENCY: '8',
    });
  }

  async function replica(worker: boolean): Promise<Replica> {
    const app = await bootstrapService(AppModule.forRoot(env(worker)), { queue: 'batch', natsUrl: server.url });
    return { app, batches: app.get(BatchesService), runner: app.get(BatchRunner), sweeper: app.get(BatchSweeper) };
  }

  async function until(condition: () => boolean | Promise<boolean>, ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (!(await condition())) {
      if (Date.now() > end) throw new Error(`condition not reached within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const principal = (): Principal => principalFixture('e'.repeat(64), { workspaceId: randomUUID(), userId: randomUUID() });

  beforeAll(async () => {
    await createTestDatabases(prefix);
    server = await PrivateNatsServer.start();
    probe = await ResilientNatsConnection.open({ servers: server.url, name: 'batch-wake-probe' });
    peers = new FakePeers(probe.connection);
    await probe.connection.flush();
    api = await replica(false);
    workers = [await replica(true), await replica(true)];
    prisma = api.app.get(PrismaService);
    // Both workers are idle: each swept and claimed once, found nothing, and waits IDLE_POLL_MS.
    await until(() => workers.every((worker) => sweeps.mock.contexts.includes(worker.sweeper)), 10_000);
    await until(() => claims.mock.calls.length >= workers.length, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.runner.stop()));
    peers?.release();
    for (const replica of [api, ...workers]) await replica?.app.close();
    peers?.close();
    await probe?.close();
    await server?.stop();
    await dropTestDatabases(prefix);
  }, 60_000);

  it('starts and runs a batch submitted through a replica without a worker well within BATCH_IDLE_POLL_MS, on both workers', async () => {
    const sweptBefore = sweeps.mock.calls.length;
    const who = principal();
    const { id } = await api.batches.create({
      principal: who,
      endpoint: '/v1/chat/completions',
      model: 'sim/model',
      completionWindow: '24h',
    });
    const lines = Array.from({ length: LINES }, (_, n) => ({
      index: n,
      custom_id: `c-${n}`,
      body: { messages: [{ role: 'user', content: `${id}-line-${n}` }] },
    }));
    await api.batches.append({ principal: who, batchId: id, lines });
    // Each line takes 100 ms: one worker alone (4 at once) needs a second, long enough for the other to join.
    peers.delayMs = 100;
    const submittedAt = Date.now();
    await api.batches.submit(who, id, LINES);

    await until(async () => (await prisma.batch.findUniqueOrThrow({ where: { id } })).status !== 'validating', 5_000);
    const startedAfter = Date.now() - submittedAt;
    await until(async () => (await prisma.batch.findUniqueOrThrow({ where: { id } })).status === 'completed', 20_000);
    const completedAfter = Date.now() - submittedAt;
    peers.delayMs = 0;

    expect(sweeps.mock.calls.length).toBeGreaterThan(sweptBefore);
    expect(startedAfter).toBeLessThan(5_000);
    expect(completedAfter).toBeLessThan(IDLE_POLL_MS / 3);
    const batch = await prisma.batch.findUniqueOrThrow({ where: { id } });
    expect(batch.completedCount).toBe(LINES);
    // The worker that did not start the batch ran lines too: the other's `started` woke its runner.
    for (const worker of workers) expect(worker.runner.finished).toBeGreaterThan(0);
    expect(workers[0]!.runner.finished + workers[1]!.runner.finished).toBe(LINES);
  }, 40_000);

  describe('BatchWakeEvents on the bus', () => {
    async function listener(worker: boolean) {
      const connection = await ResilientNatsConnection.open({ servers: server.url, name: `wake-${worker}` });
      const signals = new BatchSignals();
      const heard = vi.spyOn(signals, 'heard');
      const events = new BatchWakeEvents(connection, signals, env(worker));
      events.onModuleInit();
      await connection.connection.flush();
      return { connection, signals, heard, events };
    }

    const publish = async (data: unknown): Promise<void> => {
      probe.connection.publish(BatchesChanged.subject, typeof data === 'string' ? data : JSON.stringify(data));
      await probe.connection.flush();
      await new Promise((resolve) => setTimeout(resolve, 150));
    };

    it('wakes on another replica’s event, ignores its own and malformed ones; an API-only replica publishes but does not listen', async () => {
      const worker = await listener(true);
      const apiOnly = await listener(false);
      const seen: string[] = [];
      const tap = probe.connection.subscribe(BatchesChanged.subject, { callback: (_error, message) => void seen.push(message.string()) });
      await probe.connection.flush();

      await publish({ reason: 'started', replica: 'another-replica' });
      await publish({ reason: 'lines', replica: worker.events.replica });
      await publish({ reason: 'restarted', replica: 'another-replica' });
      await publish('not json');
      expect(worker.heard.mock.calls).toEqual([['started']]);

      apiOnly.signals.batchChanged('submitted');
      await apiOnly.connection.connection.flush();
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(JSON.parse(seen.at(-1)!)).toEqual({ reason: 'submitted', replica: apiOnly.events.replica } satisfies BatchesChangedEvent);
      expect(worker.heard.mock.calls).toEqual([['started'], ['submitted']]);
      expect(apiOnly.heard).not.toHaveBeenCalled();

      // The bus gone: the request that made the work is not failed by the announcement.
      await apiOnly.connection.close();
      expect(() => apiOnly.signals.batchChanged('cancelled')).not.toThrow();

      tap.unsubscribe();
      worker.events.onModuleDestroy();
      apiOnly.events.onModuleDestroy();
      await worker.connection.close();
    });
  });
});
