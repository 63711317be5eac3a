import type { INestMicroservice } from '@nestjs/common';
import { validateEnv } from '@gw/config';
import { JETSTREAM, SUBJECTS, type ChatCompletionView, type UsageRecordedEvent } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { bootstrapService, ResilientNatsConnection, RpcClient, SINGLE_NODE } from '@gw/messaging';
import { ensureUsageStream } from '@gw/usage';
import { startSimulator, type RunningSimulator } from '@gw/provider-simulator';
import { principalFixture, PrivateNatsServer, testDatabaseUrl } from '@gw/testing';
import type { JetStreamManager } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppModule } from '../app.module.js';
import { InferenceEnv } from '../env.js';
import { FakeManagement } from '../testing/fake-management.js';

const ACK_TIMEOUT_MS = 6_000;

/**
 * Issue 9, item 2: the answer of a generation leaves inference only after its usage
 * event is stored in JetStream. The USAGE stream is made deaf to `events.usage.recorded`
 * (its subjects changed: publishes get "no responders", as with the stream missing), so the
 * PubAck cannot come: the answer must wait, and come once the stream takes events again; or,
 * past USAGE_ACK_TIMEOUT_MS, the request fails (retryable) rather than answer unbilled.
 */
describe('usage is durable before the answer', () => {
  let natsServer: PrivateNatsServer;
  let simulator: RunningSimulator;
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let management: FakeManagement;
  let jsm: JetStreamManager;

  const chat = (extra: Record<string, unknown> = {}) =>
    rpc.send<ChatCompletionView>(SUBJECTS.inference.chatCreate, {
      principal: principalFixture('b'.repeat(64), { workspaceId: randomUUID(), userId: randomUUID() }),
      body: { model: 't/plain', messages: [{ role: 'user', content: 'Bill me' }] },
      ...extra,
    });

  async function setUsageSubjects(subjects: string[]): Promise<void> {
    const { config } = await jsm.streams.info(JETSTREAM.usageStream);
    await jsm.streams.update(JETSTREAM.usageStream, { ...config, subjects });
  }
  const park = () => setUsageSubjects(['events.usage-parked.>']);
  const unpark = () => setUsageSubjects([...JETSTREAM.usageSubjects]);

  async function storedGenerationIds(): Promise<string[]> {
    const info = await jsm.streams.info(JETSTREAM.usageStream);
    const ids: string[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const message = await jsm.streams.getMessage(JETSTREAM.usageStream, { seq }).catch(() => null);
      if (!message) continue;
      const body = message.json<UsageRecordedEvent | { events: UsageRecordedEvent[] }>();
      ids.push(...('events' in body ? body.events : [body]).map((event) => event.generationId));
    }
    return ids;
  }

  /** Settles the promise into what happened and when, without throwing. */
  function track<T>(promise: Promise<T>): {
    state: () => 'pending' | 'answered' | 'failed';
    result: Promise<{ value?: T; error?: unknown }>;
  } {
    let state: 'pending' | 'answered' | 'failed' = 'pending';
    const result = promise.then(
      (value) => {
        state = 'answered';
        return { value };
      },
      (error: unknown) => {
        state = 'failed';
        return { error };
      },
    );
    return { state: () => state, result };
  }

  beforeAll(async () => {
    natsServer = await PrivateNatsServer.start();
    simulator = await startSimulator();
    const catalogPath = join(mkdtempSync(join(tmpdir(), 'gw-catalog-')), 'models.json');
    writeFileSync(
      catalogPath,
      JSON.stringify({
        providers: [{ id: 'sim', name: 'Sim', format: 'openai', baseUrl: `${simulator.url}/openai/v1`, apiKey: 'sk-sim' }],
        models: [
          {
            id: 't/plain',
            name: 't/plain',
            contextLength: 128000,
            supportedParameters: [],
            endpoints: [{ provider: 'sim', upstreamModel: 'gpt-4o-mini', pricing: { prompt: '0.000001', completion: '0.000002' } }],
          },
        ],
      }),
    );
    const env = validateEnv(InferenceEnv, {
      DATABASE_URL: testDatabaseUrl(inject('databasePrefix'), 'inference'),
      NATS_URL: natsServer.url,
      LOG_LEVEL: 'silent',
      MODEL_CATALOG_PATHS: catalogPath,
      USAGE_ACK_TIMEOUT_MS: String(ACK_TIMEOUT_MS),
    });
    service = await bootstrapService(AppModule.forRoot(env), { queue: 'inference', natsUrl: natsServer.url });
    nats = await ResilientNatsConnection.open({ servers: natsServer.url, name: 'usage-durable-spec' });
    rpc = new RpcClient(nats, 30_000);
    management = new FakeManagement(nats.connection);
    jsm = await ensureUsageStream(nats.connection, SINGLE_NODE);
    await nats.connection.flush();
  });

  afterAll(async () => {
    management?.close();
    rpc?.close();
    await nats?.close();
    await service?.close();
    await simulator?.close();
    await natsServer?.stop();
  });

  it('answers after the PubAck: with JetStream not storing, the answer waits and comes once it does', async () => {
    // Warm: a first chat with the stream as it should be.
    const warm = await chat();
    expect((await storedGenerationIds()).includes(warm.id)).toBe(true);

    await park();
    const call = track(chat());
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // The provider answered long ago; the usage event is not stored, so neither is the answer sent.
    expect(call.state()).toBe('pending');
    await unpark();
    const { value, error } = await call.result;
    expect(error).toBeUndefined();
    expect((await storedGenerationIds()).includes(value!.id)).toBe(true);
  }, 30_000);

  it('fails retryably, never answers unbilled, when the PubAck does not come in time; the event is stored later', async () => {
    await park();
    const before = new Set(await storedGenerationIds().catch(() => []));
    const started = Date.now();
    const { value, error } = await track(chat()).result;
    expect(value).toBeUndefined();
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(503);
    expect((error as GatewayError).metadata).toMatchObject({ reason: 'usage_unavailable', retryable: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(ACK_TIMEOUT_MS - 100);
    await unpark();
    // The outbox kept the event: it is billed although not answered (the provider was paid).
    const deadline = Date.now() + 30_000;
    let added: string[] = [];
    while (Date.now() < deadline) {
      added = (await storedGenerationIds()).filter((id) => !before.has(id));
      if (added.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(added).toHaveLength(1);
  }, 40_000);
});
