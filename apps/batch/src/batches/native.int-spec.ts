import type { INestMicroservice } from '@nestjs/common';
import { validateEnv } from '@gw/config';
import { JETSTREAM, SUBJECTS, type NativeBatchHandle, type NativeBatchLineResult, type UsageRecordedEvent } from '@gw/contracts';
import { bootstrapService, ResilientNatsConnection, SINGLE_NODE } from '@gw/messaging';
import { ensureUsageStream } from '@gw/usage';
import { principalFixture, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppModule } from '../app.module.js';
import { ManualClock } from '../clock/clock.js';
import { BatchEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { FakePeers } from '../testing/fake-peers.js';
import { BatchSweeper } from '../worker/batch-sweeper.service.js';
import { BatchesService } from './batches.service.js';

/**
 * The native path against real PostgreSQL and NATS, inference's `inference.batches.native.*`
 * played by a stand-in speaking the contract: submit, polls with backoff on the injectable
 * clock, results stored once however often they come, cancel and delete upstream.
 */
describe('batches run natively at the provider', () => {
  const clock = new ManualClock(new Date('2026-11-23T09:00:00.000Z'));
  let nats: ResilientNatsConnection;
  let peers: FakePeers;
  let app: INestMicroservice;
  let batches: BatchesService;
  let sweeper: BatchSweeper;
  let prisma: PrismaService;

  const handle = (batchId: string, workspaceId = randomUUID()): NativeBatchHandle => ({
    workspaceId,
    v: 1,
    api: 'openai',
    provider: 'simulator-openai',
    endpointId: 'simulator-openai/gpt-4o-mini',
    model: 'sim/model',
    upstreamModel: 'gpt-4o-mini',
    endpoint: '/v1/chat/completions',
    batchId,
    upstreamBatchId: 'batch_up_1',
    inputFileId: 'file-1',
    isByok: false,
    submittedAt: 1,
  });
  const result = (customId: string, ok: boolean, cost: string): NativeBatchLineResult => ({
    custom_id: customId,
    ok,
    status_code: ok ? 200 : null,
    request_id: ok ? `req-${customId}` : null,
    body: ok ? { id: `gen-batch-${customId}`, object: 'chat.completion', usage: { cost: Number(cost) } } : null,
    error: ok ? null : { type: 'batch_cancelled', message: 'never ran', param: null },
    usage: {
      prompt_tokens: ok ? 10 : 0,
      completion_tokens: ok ? 4 : 0,
      total_tokens: ok ? 14 : 0,
      cached_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
      cost,
      upstream_cost: cost,
      upstream_prompt_cost: '0',
      upstream_completion_cost: '0',
      is_byok: false,
    },
    generation_id: `gen-batch-${customId}`,
    provider: 'simulator-openai',
    upstream_model: 'gpt-4o-mini',
  });

  async function submit(lines: number): Promise<{ who: ReturnType<typeof principalFixture>; id: string }> {
    const who = principalFixture('e'.repeat(64), { workspaceId: randomUUID(), userId: randomUUID() });
    const { id } = await batches.create({ principal: who, endpoint: '/v1/chat/completions', model: 'sim/model', completionWindow: '24h' });
    await batches.append({
      principal: who,
      batchId: id,
      lines: Array.from({ length: lines }, (_, n) => ({
        index: n,
        custom_id: `c-${n}`,
        body: { messages: [{ role: 'user', content: `x ${n}` }] },
      })),
    });
    await batches.submit(who, id, lines);
    return { who, id };
  }

  /** The events naming batch `batchId` on the USAGE stream, its lines' generations published in messages of several. */
  async function lineEvents(batchId: string): Promise<UsageRecordedEvent[]> {
    const jsm = await ensureUsageStream(nats.connection, SINGLE_NODE);
    const info = await jsm.streams.info(JETSTREAM.usageStream);
    const found: UsageRecordedEvent[] = [];
    for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(JETSTREAM.usageStream, { seq }).catch(() => null);
      // The stream is shared with the run's other files, whose poison-event tests publish bodies that are not JSON.
      let events: UsageRecordedEvent[] = [];
      try {
        events = message?.json<{ events?: UsageRecordedEvent[] }>().events ?? [];
      } catch {
        continue;
      }
      found.push(...events.filter((event) => event.batchId === batchId));
    }
    return found;
  }

  beforeAll(async () => {
    nats = await ResilientNatsConnection.open({ servers: inject('natsUrl'), name: 'native-int-spec' });
    peers = new FakePeers(nats.connection);
    await nats.connection.flush();
    const env = validateEnv(BatchEnv, {
      DATABASE_URL: testDatabaseUrl(inject('databasePrefix'), 'batch'),
      NATS_URL: inject('natsUrl'),
      LOG_LEVEL: 'silent',
      BATCH_WORKER: 'false',
      BATCH_NATIVE_POLL_MIN_MS: '1000',
      BATCH_NATIVE_POLL_MAX_MS: '4000',
    });
    app = await bootstrapService(AppModule.forRoot(env, { clock }), { queue: 'batch-native-spec', natsUrl: inject('natsUrl') });
    batches = app.get(BatchesService);
    sweeper = app.get(BatchSweeper);
    prisma = app.get(PrismaService);
  });

  afterAll(async () => {
    await app?.close();
    peers?.close();
    await nats?.close();
  });

  it('submits, polls with backoff on the clock, stores the results once, charges the batch-priced sum, deletes upstream', async () => {
    const { who, id } = await submit(3);
    peers.nativeSubmit = { native: true, handle: handle(id) };
    peers.nativeStatuses = [{ state: 'in_progress', counts: { total: 3, completed: 1, failed: 0 } }];
    await sweeper.sweep();
    const submitted = peers.nativeCalls.find(
      (call) => call.subject === SUBJECTS.inference.batchesNativeSubmit && call.data.batchId === id,
    )!;
    expect((submitted.data.lines as unknown[]).length).toBe(3);
    expect((await batches.get(who, id)).status).toBe('in_progress');
    const polls = () =>
      peers.nativeCalls.filter(
        (call) => call.subject === SUBJECTS.inference.batchesNativeStatus && (call.data.handle as NativeBatchHandle).batchId === id,
      ).length;
    await sweeper.sweep();
    expect(polls()).toBe(0); // not due before 1 s on the clock
    clock.advance(1_000);
    await sweeper.sweep();
    expect(polls()).toBe(1);
    clock.advance(1_000);
    await sweeper.sweep();
    expect(polls()).toBe(1); // backoff: the next is 2 s after
    clock.advance(1_000);
    const ended = {
      state: 'ended',
      counts: { total: 3, completed: 3, failed: 0 },
      results: [result('c-0', true, '0.0001'), result('c-1', true, '0.0002'), result('c-2', true, '0.0003')],
    };
    peers.nativeStatuses = [ended];
    await sweeper.sweep();
    expect(polls()).toBe(2);
    const batch = await batches.get(who, id);
    expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 3, failed: 0 } });
    expect(batch.results!.map((item) => item.response!.request_id)).toEqual(['req-c-0', 'req-c-1', 'req-c-2']);
    expect(batch.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 12, cost: 0.0006 });
    expect((await prisma.batch.findUniqueOrThrow({ where: { id } })).cost!.toFixed()).toBe('0.0006');
    expect(await prisma.batchRequest.count({ where: { batchId: id, generationId: { startsWith: 'gen-batch-' } } })).toBe(3);
    // The read charged it: each line went to the USAGE stream first, as a generation of the batch (billed by its charge only).
    const lines = await lineEvents(id);
    expect(lines.map((event) => [event.generationId, event.cost, event.kind, event.promptTokens])).toEqual([
      ['gen-batch-c-0', '0.0001', 'generation', 10],
      ['gen-batch-c-1', '0.0002', 'generation', 10],
      ['gen-batch-c-2', '0.0003', 'generation', 10],
    ]);
    expect(
      lines.every((event) => event.batchId === id && event.provider === 'simulator-openai' && event.upstreamModel === 'gpt-4o-mini'),
    ).toBe(true);
    // Read again: already charged, nothing published twice.
    await batches.get(who, id);
    expect(await lineEvents(id)).toHaveLength(3);

    const deleted = await batches.delete(who, id);
    expect(deleted).toEqual({
      id,
      object: 'batch',
      deletion: { service: 'deleted', upstream: { provider: 'simulator-openai', status: 'deleted' } },
    });
  });

  it("cancels upstream; the provider's cancelled state brings the finished lines, counted once over repeated polls", async () => {
    const { who, id } = await submit(3);
    peers.nativeSubmit = { native: true, handle: handle(id) };
    peers.nativeStatuses = [{ state: 'in_progress', counts: { total: 3, completed: 0, failed: 0 } }];
    await sweeper.sweep();
    const cancelling = await batches.cancel(who, id);
    expect(cancelling.status).toBe('cancelling');
    expect(
      peers.nativeCalls.some(
        (call) => call.subject === SUBJECTS.inference.batchesNativeCancel && (call.data.handle as NativeBatchHandle).batchId === id,
      ),
    ).toBe(true);
    const cancelled = {
      state: 'cancelled',
      counts: { total: 3, completed: 1, failed: 2 },
      results: [result('c-0', true, '0.001'), result('c-1', false, '0'), result('c-2', false, '0')],
    };
    peers.nativeStatuses = [cancelled];
    await sweeper.sweep(); // the cancel asked for a poll at once
    const batch = await batches.get(who, id);
    expect(batch).toMatchObject({ status: 'cancelled', request_counts: { total: 3, completed: 1, failed: 2 } });
    expect(batch.usage.cost).toBe(0.001);
    clock.advance(60_000);
    await sweeper.sweep(); // nothing polls a terminal batch; counts stay
    expect((await batches.get(who, id)).request_counts).toEqual({ total: 3, completed: 1, failed: 2 });
  });

  it('fails a batch whose provider refuses it, and runs a batch here when submit says native: false', async () => {
    const refused = await submit(2);
    peers.nativeSubmit = { native: true, handle: handle(refused.id) };
    peers.nativeStatuses = [
      { state: 'failed', counts: { total: 2, completed: 0, failed: 0 }, error: { message: 'invalid JSONL on line 2' } },
    ];
    await sweeper.sweep();
    clock.advance(1_000);
    await sweeper.sweep();
    const failed = await batches.get(refused.who, refused.id);
    expect(failed).toMatchObject({ status: 'failed', error: { message: 'invalid JSONL on line 2' }, results: [] });

    const local = await submit(2);
    peers.nativeSubmit = { native: false, reason: 'no provider batch API' };
    await sweeper.sweep();
    const row = await prisma.batch.findUniqueOrThrow({ where: { id: local.id } });
    expect([row.status, row.upstream]).toEqual(['in_progress', null]);
  });
});
