import type { INestMicroservice } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { validateEnv } from '@gw/config';
import { EVENTS, JETSTREAM, SUBJECTS, type ChatCompletionView, type Principal, type UsageRecordedEvent } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { bootstrapService, ResilientNatsConnection, RPC_PROGRESS_HEADER, RpcClient, STREAM_HEADER } from '@gw/messaging';
import { startSimulator, type RunningSimulator } from '@gw/provider-simulator';
import { principalFixture, PrivateNatsServer, testDatabaseUrl } from '@gw/testing';
import { jetstream } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppModule } from '../app.module.js';
import { InferenceEnv } from '../env.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { FakeManagement } from '../testing/fake-management.js';

/** The events of one USAGE message: one bare event, or a batch of them. */
function eventsIn(text: string): UsageRecordedEvent[] {
  try {
    const body = JSON.parse(text) as UsageRecordedEvent | { events: UsageRecordedEvent[] };
    return 'events' in body ? body.events : [body];
  } catch {
    return []; // the poison message one test publishes
  }
}

const PRICE_A = { prompt: '0.000002', completion: '0.000004' };
const PRICE_B = { prompt: '0.000001', completion: '0.000002' };

function catalogFor(simulatorUrl: string): unknown {
  const provider = (id: string, name: string) => ({ id, name, format: 'openai', baseUrl: `${simulatorUrl}/openai/v1`, apiKey: 'sk-sim' });
  const model = (id: string, endpoints: Array<[string, string, { prompt: string; completion: string }]>) => ({
    id,
    name: id,
    contextLength: 128000,
    supportedParameters: ['max_tokens'],
    endpoints: endpoints.map(([providerId, upstreamModel, pricing]) => ({ provider: providerId, upstreamModel, pricing })),
  });
  return {
    providers: [provider('sim-a', 'Sim A'), provider('sim-b', 'Sim B')],
    models: [
      model('t/multi', [
        ['sim-a', 'gpt-4o-mini', PRICE_A],
        ['sim-b', 'gpt-4o-mini', PRICE_B],
      ]),
      model('t/fallback', [
        ['sim-a', 'gpt-4o-mini;status=503', PRICE_A],
        ['sim-b', 'gpt-4o-mini', PRICE_B],
      ]),
      model('t/broken', [['sim-a', 'gpt-4o-mini;status=500', PRICE_A]]),
      model('t/once', [
        ['sim-a', 'gpt-4o-mini;status=503;fail-times=1;fault-key=sticky', PRICE_A],
        ['sim-b', 'gpt-4o-mini', PRICE_B],
      ]),
    ],
  };
}

/**
 * The inference service on its own nats-server (so no other spec's inference replica answers
 * in its queue group), the real database, the provider simulator over HTTP, and a stand-in
 * for management answering the BYOK and preset subjects on that same server.
 */
describe('inference routing, presets, BYOK, usage events and generation records', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'inference');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  let natsServer: PrivateNatsServer;
  let simulator: RunningSimulator;
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let management: FakeManagement;

  const principalOf = (overrides: Partial<Principal> = {}) =>
    principalFixture('c'.repeat(64), { workspaceId: randomUUID(), userId: randomUUID(), ...overrides });
  const messages = [{ role: 'user', content: 'Route me somewhere' }];
  const chat = (principal: Principal, body: Record<string, unknown>, extra: { sessionId?: string; serviceMetadata?: boolean } = {}) =>
    rpc.send<ChatCompletionView>(SUBJECTS.inference.chatCreate, { principal, body: { messages, ...body }, ...extra });

  async function usageEventsOf(generationId: string): Promise<UsageRecordedEvent[]> {
    const consumer = await jetstream(nats.connection).consumers.get(JETSTREAM.usageStream);
    const found: UsageRecordedEvent[] = [];
    const batch = await consumer.fetch({ max_messages: 10_000, expires: 1_000 });
    for await (const message of batch) {
      found.push(...eventsIn(message.string()).filter((event) => event.generationId === generationId));
      if (message.info.pending === 0) break;
    }
    await consumer.delete().catch(() => undefined);
    return found;
  }

  async function eventually<T>(read: () => Promise<T | null | undefined>, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (value) return value;
      if (Date.now() > deadline) throw new Error('timed out waiting');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    natsServer = await PrivateNatsServer.start();
    simulator = await startSimulator();
    const catalogPath = join(mkdtempSync(join(tmpdir(), 'gw-catalog-')), 'models.json');
    writeFileSync(catalogPath, JSON.stringify(catalogFor(simulator.url)));
    const env = validateEnv(InferenceEnv, {
      DATABASE_URL: databaseUrl,
      NATS_URL: natsServer.url,
      LOG_LEVEL: 'silent',
      MODEL_CATALOG_PATHS: catalogPath,
      BYOK_FEE_RATE: '0.1',
      SERVICE_REGION: 'test-region',
    });
    service = await bootstrapService(AppModule.forRoot(env), { queue: 'inference', natsUrl: natsServer.url });
    nats = await ResilientNatsConnection.open({ servers: natsServer.url, name: 'inference-routing-spec' });
    rpc = new RpcClient(nats, 10_000);
    management = new FakeManagement(nats.connection);
    await nats.connection.flush();
  });

  afterAll(async () => {
    management?.close();
    rpc?.close();
    await nats?.close();
    await service?.close();
    await simulator?.close();
    await natsServer?.stop();
    await prisma.$disconnect();
  });

  /** The raw packets on a reply subject: heartbeats carry the `Gw-Rpc` header. */
  async function packetsOf(subject: string, data: Record<string, unknown>): Promise<Array<{ progress?: string; disposed: boolean }>> {
    const inbox = `_INBOX.commit-${randomUUID()}`;
    const packets: Array<{ progress?: string; disposed: boolean }> = [];
    let inFrames = false;
    const done = new Promise<void>((resolve) => {
      nats.connection.subscribe(inbox, {
        callback: (_error, message) => {
          const progress = message.headers?.get(RPC_PROGRESS_HEADER);
          if (progress) {
            packets.push({ progress, disposed: false });
            return;
          }
          // A stream's frames end with `Gw-Stream: end`; an answer is one packet.
          const marker = message.headers?.get(STREAM_HEADER);
          if (marker === 'frames' || (!marker && inFrames)) {
            inFrames = true;
            packets.push({ disposed: false });
            return;
          }
          if (marker === 'end') {
            packets.push({ disposed: true });
            resolve();
            return;
          }
          const packet = message.json<{ isDisposed?: boolean; err?: unknown }>();
          packets.push({ disposed: packet.isDisposed === true });
          if (packet.isDisposed === true || packet.err) resolve();
        },
      });
    });
    nats.connection.publish(subject, JSON.stringify({ pattern: subject, data, id: 'commit-probe' }), { reply: inbox });
    await done;
    return packets;
  }

  it('marks plain and streamed chats committed before it calls the provider, so the gateway never resends them', async () => {
    const principal = principalOf();
    for (const [subject, extra] of [
      [SUBJECTS.inference.chatCreate, {}],
      [SUBJECTS.inference.chatStream, { streamId: randomUUID() }],
    ] as const) {
      const packets = await packetsOf(subject, { principal, body: { messages, model: 't/multi' }, ...extra });
      // Heartbeats ('working') may come first when the machine is slow; the first other packet is the commit.
      expect(
        packets.find((packet) => packet.progress !== 'working'),
        subject,
      ).toEqual({ progress: 'committed', disposed: false });
      expect(packets.at(-1)?.disposed, subject).toBe(true);
    }
  });

  it('publishes exactly one usage event per generation and writes its generation record once', async () => {
    const principal = principalOf();
    const completion = await chat(principal, { model: 't/multi' }, { sessionId: 'session-rec' });
    const usage = completion.usage as unknown as { prompt_tokens: number; completion_tokens: number; cost: number };
    expect(completion.provider).toBe('Sim A');

    const events = await eventually(async () => {
      const found = await usageEventsOf(completion.id);
      return found.length > 0 ? found : null;
    });
    expect(events).toHaveLength(1);
    const expectedCost = (usage.prompt_tokens * 2 + usage.completion_tokens * 4) / 1e6;
    expect(events[0]).toMatchObject({
      generationId: completion.id,
      workspaceId: principal.workspaceId,
      keyHash: principal.keyHash,
      userId: principal.userId,
      model: 't/multi',
      provider: 'sim-a',
      upstreamModel: 'gpt-4o-mini',
      status: 'succeeded',
      isByok: false,
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      tokensEstimated: false,
      sessionId: 'session-rec',
      attempts: 1,
      endpointsTried: ['sim-a/gpt-4o-mini'],
    });
    expect(Number(events[0]!.cost)).toBeCloseTo(expectedCost, 12);
    expect(events[0]!.upstreamCost).toBe(events[0]!.cost);

    const row = await eventually(() => prisma.generation.findFirst({ where: { id: completion.id } }));
    expect(row).toMatchObject({
      workspaceId: principal.workspaceId,
      userId: principal.userId,
      model: 't/multi',
      provider: 'sim-a',
      sessionId: 'session-rec',
      attempts: 1,
    });
    expect(row.cost.toFixed()).toBe(events[0]!.cost);
    expect(row.upstreamCost.toFixed()).toBe(events[0]!.upstreamCost);
    expect(row.createdAt.toISOString()).toBe(events[0]!.createdAt);
  });

  it('writes one row when an event is published twice, with or without the same Nats-Msg-Id', async () => {
    const event: UsageRecordedEvent = {
      generationId: `gen-dup-${randomUUID()}`,
      workspaceId: randomUUID(),
      keyHash: 'd'.repeat(64),
      userId: randomUUID(),
      model: 't/multi',
      provider: 'sim-b',
      upstreamModel: 'gpt-4o-mini',
      status: 'failed',
      isByok: true,
      promptTokens: 10,
      completionTokens: 7,
      cachedTokens: 2,
      reasoningTokens: 1,
      tokensEstimated: true,
      cost: '0.000000123',
      upstreamCost: '0.00000123',
      latencyMs: 42,
      createdAt: '2026-11-22T01:02:03.456Z',
      batchId: 'batch_x',
      attempts: 2,
      endpointsTried: ['sim-a/gpt-4o-mini', 'sim-b/gpt-4o-mini'],
    };
    const js = jetstream(nats.connection);
    const first = await js.publish(EVENTS.usageRecorded, JSON.stringify(event), { msgID: event.generationId });
    const again = await js.publish(EVENTS.usageRecorded, JSON.stringify(event), { msgID: event.generationId });
    expect(again.duplicate).toBe(true);
    expect(again.seq).toBe(first.seq);
    // Past the duplicate window (or from a second publisher) the stream holds it twice: the consumer must not.
    await js.publish(EVENTS.usageRecorded, JSON.stringify(event), { msgID: `${event.generationId}-replay` });
    // A poison message on the subject is terminated, not retried forever, and does not block the others.
    await js.publish(EVENTS.usageRecorded, 'not json', { msgID: `poison-${randomUUID()}` });
    // A batch message (what the publisher sends under load) that repeats the event and adds one.
    const batched = { ...event, generationId: `gen-batched-${randomUUID()}` };
    await js.publish(EVENTS.usageRecorded, JSON.stringify({ events: [event, batched] }), { msgID: `batch-${randomUUID()}` });
    const marker = { ...event, generationId: `gen-marker-${randomUUID()}` };
    await js.publish(EVENTS.usageRecorded, JSON.stringify(marker), { msgID: marker.generationId });
    await eventually(() => prisma.generation.findFirst({ where: { id: marker.generationId } }));
    expect(await prisma.generation.count({ where: { id: batched.generationId } })).toBe(1);

    const rows = await prisma.generation.findMany({ where: { id: event.generationId } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: 'failed',
      isByok: true,
      promptTokens: 10,
      completionTokens: 7,
      cachedTokens: 2,
      reasoningTokens: 1,
      tokensEstimated: true,
      latencyMs: 42,
      batchId: 'batch_x',
      sessionId: null,
      attempts: 2,
      endpointsTried: ['sim-a/gpt-4o-mini', 'sim-b/gpt-4o-mini'],
    });
    expect(rows[0]!.cost.toFixed()).toBe('0.000000123');
    expect(rows[0]!.upstreamCost.toFixed()).toBe('0.00000123');
    expect(rows[0]!.createdAt.toISOString()).toBe('2026-11-22T01:02:03.456Z');
  });

  it('reports routing metadata only when asked: attempt 2 after the first endpoint failed', async () => {
    const principal = principalOf();
    const plain = await chat(principal, { model: 't/fallback' });
    expect(plain).not.toHaveProperty('service_metadata');

    const withMetadata = await chat(principal, { model: 't/fallback' }, { serviceMetadata: true });
    expect(withMetadata.provider).toBe('Sim B');
    expect(withMetadata.service_metadata).toMatchObject({
      attempt: 2,
      is_byok: false,
      region: 'test-region',
      requested: 't/fallback',
      strategy: 'default',
      endpoints: {
        total: 2,
        available: [
          { model: 't/fallback', provider: 'Sim A', selected: false },
          { model: 't/fallback', provider: 'Sim B', selected: true },
        ],
      },
    });
    expect(withMetadata.service_metadata!.summary).toMatch(/#1 .*failed: 503 provider_unavailable; #2 .*succeeded/);
    expect(Number.isInteger(withMetadata.service_metadata!.generation_time)).toBe(true);
  });

  it('honours provider.only / ignore / order / sort and allow_fallbacks', async () => {
    const principal = principalOf();
    expect((await chat(principal, { model: 't/multi', provider: { only: ['sim-b'] } })).provider).toBe('Sim B');
    expect((await chat(principal, { model: 't/multi', provider: { ignore: ['Sim A'] } })).provider).toBe('Sim B');
    expect((await chat(principal, { model: 't/multi', provider: { order: ['sim-b', 'sim-a'] } })).provider).toBe('Sim B');
    expect((await chat(principal, { model: 't/multi', provider: { sort: 'price' } })).provider).toBe('Sim B');
    await expect(chat(principal, { model: 't/fallback', provider: { allow_fallbacks: false } })).rejects.toMatchObject({
      status: 503,
      errorType: 'provider_unavailable',
    });
    await expect(chat(principal, { model: 't/multi', provider: { only: ['nobody'] } })).rejects.toMatchObject({
      status: 404,
      errorType: 'not_found',
    });
  });

  it('falls back across models listed in `models`', async () => {
    const completion = await chat(principalOf(), { model: 't/broken', models: ['t/multi'] }, { serviceMetadata: true });
    expect(completion.model).toBe('t/multi');
    expect(completion.service_metadata).toMatchObject({ attempt: 2, requested: 't/broken', strategy: 'default+models' });
    await expect(chat(principalOf(), { model: 't/broken', models: ['nope/missing'] })).rejects.toMatchObject({ status: 404 });
  });

  it('keeps a session on the endpoint it last succeeded on', async () => {
    const principal = principalOf();
    // The first call to t/once fails once on sim-a, so the session lands on sim-b ...
    const first = await chat(principal, { model: 't/once', session_id: 'sticky-1' }, { serviceMetadata: true });
    expect(first.provider).toBe('Sim B');
    // ... and stays there although sim-a answers again, while a session-less call goes to sim-a.
    const second = await chat(principal, { model: 't/once', session_id: 'sticky-1' }, { serviceMetadata: true });
    expect(second.provider).toBe('Sim B');
    expect(second.service_metadata).toMatchObject({ attempt: 1, strategy: 'sticky' });
    expect((await chat(principal, { model: 't/once' })).provider).toBe('Sim A');
    // The gateway's session id (header or body, already chosen) is the key too.
    expect((await chat(principal, { model: 't/once' }, { sessionId: 'sticky-1' })).provider).toBe('Sim B');
  });

  describe('BYOK', () => {
    const credential = (overrides: Record<string, unknown>) => ({
      id: randomUUID(),
      provider: 'sim-a',
      apiKey: 'sk-sim-mine',
      isFallback: false,
      isByokOnly: false,
      isRequired: false,
      sortOrder: 0,
      allowedApiKeyHashes: null,
      allowedModels: null,
      allowedUserIds: null,
      ...overrides,
    });

    it('uses the workspace key, marks is_byok and charges only the gateway fee', async () => {
      const principal = principalOf();
      management.credentials.set(principal.workspaceId, [credential({})]);
      const completion = await chat(principal, { model: 't/multi' }, { serviceMetadata: true });
      const usage = completion.usage as unknown as {
        prompt_tokens: number;
        completion_tokens: number;
        cost: number;
        is_byok: boolean;
        cost_details: Record<string, number | null>;
      };
      const upstream = (usage.prompt_tokens * 2 + usage.completion_tokens * 4) / 1e6;
      expect(usage.is_byok).toBe(true);
      expect(usage.cost_details.upstream_inference_cost).toBeCloseTo(upstream, 12);
      expect(usage.cost).toBeCloseTo(upstream * 0.1, 12); // BYOK_FEE_RATE=0.1
      expect(completion.service_metadata).toMatchObject({ attempt: 1, is_byok: true });
      const [event] = await eventually(async () => {
        const found = await usageEventsOf(completion.id);
        return found.length > 0 ? found : null;
      });
      expect(event).toMatchObject({ isByok: true });
      expect(Number(event!.upstreamCost)).toBeCloseTo(upstream, 12);
      expect(Number(event!.cost)).toBeCloseTo(upstream * 0.1, 12);
    });

    it('moves on to the gateway key after the provider refused the workspace key', async () => {
      const principal = principalOf();
      management.credentials.set(principal.workspaceId, [credential({ apiKey: 'sk-sim-invalid' })]);
      const completion = await chat(principal, { model: 't/multi', provider: { only: ['sim-a'] } }, { serviceMetadata: true });
      expect(completion.usage.is_byok).toBe(false);
      expect(completion.service_metadata).toMatchObject({ attempt: 2, is_byok: false });
      expect(completion.service_metadata!.summary).toMatch(/#1 .*\(byok\) failed: 401.*#2 .*\(gateway key\) succeeded/);
    });

    it('never falls back to the gateway key past a byok-only key', async () => {
      const principal = principalOf();
      management.credentials.set(principal.workspaceId, [credential({ apiKey: 'sk-sim-invalid', isByokOnly: true })]);
      await expect(chat(principal, { model: 't/multi', provider: { only: ['sim-a'] } })).rejects.toBeInstanceOf(GatewayError);
    });

    it('skips a key whose allow-lists do not admit the request', async () => {
      const principal = principalOf();
      management.credentials.set(principal.workspaceId, [credential({ allowedUserIds: [randomUUID()] })]);
      expect((await chat(principal, { model: 't/multi' })).usage.is_byok).toBe(false);
    });

    it('caches a workspace’s keys and drops them on events.byok.changed', async () => {
      const principal = principalOf();
      await chat(principal, { model: 't/multi' });
      const before = management.calls.byok;
      await chat(principal, { model: 't/multi' });
      expect(management.calls.byok).toBe(before);
      management.credentials.set(principal.workspaceId, [credential({})]);
      nats.connection.publish(
        EVENTS.byokChanged,
        JSON.stringify({ pattern: EVENTS.byokChanged, data: { workspaceId: principal.workspaceId } }),
      );
      await nats.connection.flush();
      await eventually(async () => (await chat(principal, { model: 't/multi' })).usage.is_byok || null, 3_000);
      expect(management.calls.byok).toBe(before + 1);
    });
  });

  describe('presets', () => {
    it('applies the designated version: config under request fields, system prompt first', async () => {
      const principal = principalOf();
      management.presets.set(`${principal.workspaceId}/terse`, {
        slug: 'terse',
        presetId: randomUUID(),
        versionId: randomUUID(),
        version: 2,
        config: { model: 't/multi', max_tokens: 3, provider: { only: ['sim-b'] } },
        systemPrompt: 'Answer in three words.',
      });
      const viaModel = await chat(principal, { model: '@preset/terse' });
      expect(viaModel.model).toBe('t/multi');
      expect(viaModel.provider).toBe('Sim B');
      expect(viaModel.choices[0]!.finish_reason).toBe('length');
      expect(viaModel.usage.completion_tokens).toBe(3);

      // Request fields win: max_tokens 5, and the model named beside the preset.
      const overridden = await chat(principal, { model: 't/fallback@preset/terse', max_tokens: 5 });
      expect(overridden.model).toBe('t/fallback');
      expect(overridden.usage.completion_tokens).toBe(5);

      // The system prompt is a message the provider counted: more prompt tokens than without it.
      const bare = await chat(principal, { model: 't/multi', max_tokens: 3 });
      const viaField = await chat(principal, { model: 't/multi', preset: 'terse' });
      expect(viaField.usage.prompt_tokens).toBeGreaterThan(bare.usage.prompt_tokens);
    });

    it('answers 404 for an unknown preset, and caches a known one until events.presets.changed', async () => {
      const principal = principalOf();
      await expect(chat(principal, { model: '@preset/missing' })).rejects.toMatchObject({ status: 404, errorType: 'not_found' });
      management.presets.set(`${principal.workspaceId}/cached`, {
        slug: 'cached',
        presetId: randomUUID(),
        versionId: randomUUID(),
        version: 1,
        config: { model: 't/multi', max_tokens: 2 },
        systemPrompt: null,
      });
      expect((await chat(principal, { model: '@preset/cached' })).usage.completion_tokens).toBe(2);
      const calls = management.calls.presets;
      management.presets.set(`${principal.workspaceId}/cached`, {
        ...management.presets.get(`${principal.workspaceId}/cached`)!,
        config: { model: 't/multi', max_tokens: 4 },
      });
      expect((await chat(principal, { model: '@preset/cached' })).usage.completion_tokens).toBe(2);
      expect(management.calls.presets).toBe(calls);
      nats.connection.publish(
        EVENTS.presetsChanged,
        JSON.stringify({ pattern: EVENTS.presetsChanged, data: { workspaceId: principal.workspaceId } }),
      );
      await nats.connection.flush();
      await eventually(
        async () => ((await chat(principal, { model: '@preset/cached' })).usage.completion_tokens === 4 ? true : null),
        3_000,
      );
    });
  });
});
