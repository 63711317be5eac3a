import { validateEnv } from '@gw/config';
import { EVENTS, JETSTREAM, type UsageRecordedEvent } from '@gw/contracts';
import { DEAD_LETTER_HEADERS, deadLetterSubject, ResilientNatsConnection, SINGLE_NODE } from '@gw/messaging';
import { ensureUsageStream } from '@gw/usage';
import { PrivateNatsServer, testDatabaseUrl } from '@gw/testing';
import { jetstream, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InferenceEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { GenerationPartitions } from './generation-partitions.service.js';
import { GenerationsConsumer } from './generations-consumer.js';
import { metricsRegistry } from '@gw/metrics';

/**
 * A TCP relay to PostgreSQL that can be cut and restored on the same port: a database outage
 * as the consumer sees it (connections refused, open ones reset).
 */
class DatabaseRelay {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

/**
 * Inference's generation records consumer on a real JetStream (a private nats-server, so no
 * other spec's inference consumes its stream) and the real PostgreSQL: a generation the
 * database refuses (a NUL in its session id: 22021) must not hold the events around it, and
 * goes to DEAD_LETTERS after its delivery limit (issue 9, item 1). A database outage
 * must not dead-letter anything.
 */
describe('generation records: poison events are split out and dead-lettered', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'inference');
  const MAX_DELIVERIES = 3;
  let natsServer: PrivateNatsServer;
  let nats: ResilientNatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let reader: PrismaService;
  const running: Array<{ consumer: GenerationsConsumer; prisma: PrismaService }> = [];

  const event = (overrides: Partial<UsageRecordedEvent> = {}): UsageRecordedEvent => ({
    generationId: `gen-${randomUUID()}`,
    workspaceId: randomUUID(),
    keyHash: 'd'.repeat(64),
    userId: randomUUID(),
    model: 'sim/gpt-4o-mini',
    provider: 'simulator-openai',
    upstreamModel: 'gpt-4o-mini',
    status: 'succeeded',
    isByok: false,
    promptTokens: 3,
    completionTokens: 4,
    cachedTokens: 0,
    reasoningTokens: 0,
    tokensEstimated: false,
    cost: '0.000002',
    upstreamCost: '0.000002',
    latencyMs: 5,
    createdAt: new Date().toISOString(),
    sessionId: 'session-ok',
    ...overrides,
  });

  const envFor = (url: string) =>
    validateEnv(InferenceEnv, {
      DATABASE_URL: url,
      NATS_URL: natsServer.url,
      LOG_LEVEL: 'silent',
      CONSUMER_MAX_DELIVERIES: String(MAX_DELIVERIES),
    });

  function startConsumer(url = databaseUrl): GenerationsConsumer {
    const env = envFor(url);
    const prisma = new PrismaService(env);
    const consumer = new GenerationsConsumer(nats, prisma, new GenerationPartitions(prisma, env), env);
    running.push({ consumer, prisma });
    consumer.onApplicationBootstrap();
    return consumer;
  }

  async function stopConsumers(): Promise<void> {
    for (const { consumer, prisma } of running.splice(0)) {
      await consumer.onModuleDestroy();
      await prisma.$disconnect();
    }
  }

  const stored = async (ids: string[]) =>
    (await reader.generation.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((row) => row.id).sort();

  async function eventually<T>(read: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function deadLetters(): Promise<Array<{ headers: Record<string, string>; body: string; subject: string }>> {
    const info = await jsm.streams.info(JETSTREAM.deadLetterStream).catch(() => null);
    if (!info || info.state.messages === 0) return [];
    const letters = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(JETSTREAM.deadLetterStream, { seq }).catch(() => null);
      if (!message) continue;
      const headers: Record<string, string> = {};
      for (const name of Object.values(DEAD_LETTER_HEADERS)) {
        const value = message.header?.get(name);
        if (value) headers[name] = value;
      }
      letters.push({ headers, body: message.string(), subject: message.subject });
    }
    return letters;
  }

  beforeAll(async () => {
    natsServer = await PrivateNatsServer.start();
    nats = await ResilientNatsConnection.open({ servers: natsServer.url, name: 'generations-dead-letters-spec' });
    jsm = await ensureUsageStream(nats.connection, SINGLE_NODE);
    js = jetstream(nats.connection);
    reader = new PrismaService(envFor(databaseUrl));
  });

  afterAll(async () => {
    await stopConsumers();
    await reader?.$disconnect();
    await nats?.close();
    await natsServer?.stop();
  });

  it('stores the events around a poison one, and dead-letters the poison after its deliveries', async () => {
    const poison = event({ sessionId: 'a\u0000b' });
    const before = Array.from({ length: 3 }, () => event());
    const after = Array.from({ length: 5 }, () => event());
    // A batch message (what inference's publisher sends under load) with a good event and a poison one.
    const batchGood = event();
    const batchPoison = event({ sessionId: 'x\u0000y' });
    const batchPayload = JSON.stringify({ events: [batchGood, batchPoison] });
    // All published before the consumer starts, so they arrive in one batch with the poison.
    for (const good of before) await js.publish(EVENTS.usageRecorded, JSON.stringify(good));
    const poisonPayload = JSON.stringify(poison);
    const poisonAck = await js.publish(EVENTS.usageRecorded, poisonPayload);
    await js.publish(EVENTS.usageRecorded, batchPayload);
    for (const good of after) await js.publish(EVENTS.usageRecorded, JSON.stringify(good));

    const consumer = startConsumer();
    const goodIds = [...before, ...after, batchGood].map((item) => item.generationId).sort();
    // Normal traffic is recorded without waiting for the poison's fate.
    await eventually(async () => (await stored(goodIds)).length === goodIds.length, 30_000, 'the good events to be stored');
    expect(await stored([poison.generationId, batchPoison.generationId])).toEqual([]);

    // Deliveries 1, 2 (after 1 s) and 3 (after 2 s more), then DEAD_LETTERS.
    const letters = await eventually(
      async () => {
        const found = await deadLetters();
        return found.length === 2 && found;
      },
      30_000,
      'two dead letters',
    );
    const bare = letters.find((letter) => letter.headers[DEAD_LETTER_HEADERS.items] === poison.generationId)!;
    expect(bare.subject).toBe(deadLetterSubject(JETSTREAM.usageStream, JETSTREAM.consumers.inferenceGenerations));
    expect(bare.body).toBe(poisonPayload); // the original bytes, to replay once fixed
    expect(bare.headers[DEAD_LETTER_HEADERS.consumer]).toBe(JETSTREAM.consumers.inferenceGenerations);
    expect(bare.headers[DEAD_LETTER_HEADERS.stream]).toBe(JETSTREAM.usageStream);
    expect(bare.headers[DEAD_LETTER_HEADERS.subject]).toBe(EVENTS.usageRecorded);
    expect(bare.headers[DEAD_LETTER_HEADERS.sequence]).toBe(String(poisonAck.seq));
    expect(bare.headers[DEAD_LETTER_HEADERS.deliveries]).toBe(String(MAX_DELIVERIES));
    expect(bare.headers[DEAD_LETTER_HEADERS.reason]).toMatch(/22021|0x00|invalid byte sequence/i);
    const batched = letters.find((letter) => letter.headers[DEAD_LETTER_HEADERS.items] === batchPoison.generationId)!;
    expect(batched.body).toBe(batchPayload);

    // Terminated: nothing pending, nothing waiting for an ack; counted.
    await eventually(
      async () => {
        const info = await jsm.consumers.info(JETSTREAM.usageStream, JETSTREAM.consumers.inferenceGenerations);
        return info.num_pending === 0 && info.num_ack_pending === 0 && info.num_redelivered === 0;
      },
      30_000,
      'the consumer to be drained',
    );
    expect(consumer.stats()).toEqual({ deadLettered: 2, malformed: 0, refused: 0 });
    // ... and counted for Prometheus, per stream and consumer.
    const metric = await metricsRegistry.getSingleMetric('jetstream_dead_lettered_events_total')!.get();
    expect(metric.values.find((value) => value.labels.consumer === JETSTREAM.consumers.inferenceGenerations)?.value).toBe(2);
    const config = (await jsm.consumers.info(JETSTREAM.usageStream, JETSTREAM.consumers.inferenceGenerations)).config;
    expect(config.max_deliver).toBe(MAX_DELIVERIES * 3);

    // Traffic after it flows at once.
    const later = event();
    await js.publish(EVENTS.usageRecorded, JSON.stringify(later));
    await eventually(async () => (await stored([later.generationId])).length === 1, 30_000, 'a later event');
    await stopConsumers();
  });

  it('holds events through a database outage and stores them all after it, dead-lettering none', async () => {
    const target = new URL(databaseUrl);
    const relay = new DatabaseRelay({ host: target.hostname, port: Number(target.port || 5432) });
    await relay.open();
    const relayed = new URL(databaseUrl);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(relay.port);
    const lettersBefore = (await deadLetters()).length;
    const consumer = startConsumer(relayed.toString());
    const first = event();
    await js.publish(EVENTS.usageRecorded, JSON.stringify(first));
    await eventually(async () => (await stored([first.generationId])).length === 1, 30_000, 'the first event');

    await relay.cut();
    const during = Array.from({ length: 6 }, () => event());
    for (const item of during) await js.publish(EVENTS.usageRecorded, JSON.stringify(item));
    // Longer than MAX_DELIVERIES naks would take (1 + 2 s): an outage is not poison.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await stored(during.map((item) => item.generationId))).toEqual([]);

    await relay.open();
    const ids = during.map((item) => item.generationId).sort();
    await eventually(async () => (await stored(ids)).length === ids.length, 30_000, 'the held events after the outage');
    expect((await deadLetters()).length).toBe(lettersBefore);
    expect(consumer.stats().deadLettered).toBe(0);
    const info = await jsm.consumers.info(JETSTREAM.usageStream, JETSTREAM.consumers.inferenceGenerations);
    // The held batch kept its delivery: its ack wait was renewed, it was not nak'ed.
    expect(info.num_redelivered).toBe(0);
    await stopConsumers();
    await relay.cut();
  }, 60_000);

  it('sets max_deliver on a durable made before delivery limits existed', async () => {
    await jsm.consumers.update(JETSTREAM.usageStream, JETSTREAM.consumers.inferenceGenerations, { max_deliver: -1 });
    startConsumer();
    await eventually(
      async () =>
        (await jsm.consumers.info(JETSTREAM.usageStream, JETSTREAM.consumers.inferenceGenerations)).config.max_deliver ===
        MAX_DELIVERIES * 3,
      30_000,
      'max_deliver to be set',
    );
    await stopConsumers();
  });
});
