import type { Principal, UsageRecordedEvent } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { InferenceEnv } from '../env.js';
import type { GenerationUsagePublisher } from '../usage/generation-usage-publisher.service.js';
import { IdempotentRequests } from './idempotent-requests.service.js';
import { currentIdempotentRun } from './idempotent-run.js';

/* Against the machine's Redis (as the rate limiter's int-specs), each run under a prefix of its own. */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function envOf(overrides: Partial<InferenceEnv> = {}): InferenceEnv {
  return {
    REDIS_URL,
    REDIS_KEY_PREFIX: `test-idem-${randomUUID()}:`,
    IDEMPOTENCY_TTL_SECONDS: 120,
    IDEMPOTENCY_MAX_BYTES: 4_096,
    IDEMPOTENCY_WAIT_MS: 3_000,
    ...overrides,
  } as InferenceEnv;
}

const principal = { workspaceId: randomUUID(), keyHash: sha256(randomUUID()) } as Principal;
const eventOf = (generationId: string) => ({ generationId, cost: '0.001' }) as UsageRecordedEvent;
const keyed = (key: string, body = 'body') => ({ principal, idempotency: { key: sha256(key), fingerprint: sha256(body) } });

const services: IdempotentRequests[] = [];
function serviceWith(usage: Pick<GenerationUsagePublisher, 'publishDeferred'>, env = envOf()): IdempotentRequests {
  const service = new IdempotentRequests(usage as GenerationUsagePublisher, env);
  services.push(service);
  return service;
}

afterAll(async () => {
  await Promise.all(services.map((service) => service.onModuleDestroy()));
});

/** A run that bills one generation (its event deferred, as GenerationUsagePublisher.record does) and answers. */
function generation(id: string) {
  return vi.fn(async () => {
    currentIdempotentRun()!.defer(eventOf(id));
    return { id, choices: [{ message: { content: 'hi' } }] };
  });
}

describe('IdempotentRequests (non-streamed)', () => {
  it('runs once; a retry gets the stored answer and publishes the same events again, never a new generation', async () => {
    const published: string[][] = [];
    const usage = {
      publishDeferred: vi.fn(async (events: UsageRecordedEvent[]) => void published.push(events.map((e) => e.generationId))),
    };
    const service = serviceWith(usage);
    const work = generation('gen-1');
    const request = keyed('k1');
    const first = await service.answer(request, work);
    const second = await service.answer(request, work);
    expect(second).toEqual(first);
    expect(work).toHaveBeenCalledTimes(1);
    expect(published).toEqual([['gen-1'], ['gen-1']]);
  });

  it('stores the outcome before it publishes the usage: a replica dying in between leaves a replayable answer', async () => {
    const env = envOf();
    let storedWhenPublished: unknown;
    const dying = serviceWith(
      {
        publishDeferred: vi.fn(async () => {
          // What a retry on another replica would find at this instant.
          storedWhenPublished = await serviceWith({ publishDeferred: async () => undefined }, env).answer(keyed('k2'), async () => {
            throw new Error('ran again');
          });
          throw new GatewayError(503, 'lost', { metadata: { reason: 'usage_unavailable', retryable: true } });
        }),
      },
      env,
    );
    await expect(dying.answer(keyed('k2'), generation('gen-2'))).rejects.toMatchObject({ status: 503 });
    expect(storedWhenPublished).toMatchObject({ id: 'gen-2' });
  });

  it('the same key with another body is a 422; scoped per API key, another key is its own request', async () => {
    const service = serviceWith({ publishDeferred: async () => undefined });
    await service.answer(keyed('k3', 'a'), generation('gen-3'));
    await expect(service.answer(keyed('k3', 'b'), generation('gen-x'))).rejects.toMatchObject({
      status: 422,
      metadata: { reason: 'idempotency_key_reused' },
    });
    const other = { ...keyed('k3', 'a'), principal: { ...principal, keyHash: sha256('another key') } as Principal };
    await expect(service.answer(other, generation('gen-4'))).resolves.toMatchObject({ id: 'gen-4' });
  });

  it('a retry while the first runs waits for its answer; past IDEMPOTENCY_WAIT_MS it is a retryable 409', async () => {
    const service = serviceWith({ publishDeferred: async () => undefined }, envOf({ IDEMPOTENCY_WAIT_MS: 1_500 }));
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const slow = vi.fn(async () => {
      await gate;
      currentIdempotentRun()!.defer(eventOf('gen-5'));
      return { id: 'gen-5' };
    });
    const first = service.answer(keyed('k5'), slow);
    await expect(service.answer(keyed('k5'), slow)).rejects.toMatchObject({
      status: 409,
      metadata: { reason: 'idempotency_key_in_use', retryable: true },
    });
    const waiting = service.answer(keyed('k5'), slow);
    setTimeout(finish, 300);
    expect(await waiting).toEqual(await first);
    expect(slow).toHaveBeenCalledTimes(1);
  });

  it('a final error is stored and repeated; a retryable one that billed nothing lets the retry run', async () => {
    const service = serviceWith({ publishDeferred: async () => undefined });
    const refused = vi.fn(async () => {
      throw GatewayError.badRequest('bad');
    });
    await expect(service.answer(keyed('k6'), refused)).rejects.toMatchObject({ status: 400 });
    await expect(service.answer(keyed('k6'), refused)).rejects.toMatchObject({ status: 400, message: 'bad' });
    expect(refused).toHaveBeenCalledTimes(1);

    const flaky = vi
      .fn<() => Promise<{ id: string }>>()
      .mockRejectedValueOnce(new GatewayError(503, 'lost', { metadata: { reason: 'replica_lost', retryable: true } }))
      .mockImplementation(generation('gen-7'));
    await expect(service.answer(keyed('k7'), flaky)).rejects.toMatchObject({ status: 503 });
    await expect(service.answer(keyed('k7'), flaky)).resolves.toMatchObject({ id: 'gen-7' });
  });

  it('an answer above IDEMPOTENCY_MAX_BYTES is billed once and its retry is a 409, not a second run', async () => {
    const published: number[] = [];
    const service = serviceWith({ publishDeferred: async (events) => void published.push(events.length) });
    const big = vi.fn(async () => {
      currentIdempotentRun()!.defer(eventOf('gen-8'));
      return { id: 'gen-8', text: 'x'.repeat(10_000) };
    });
    await service.answer(keyed('k8'), big);
    await expect(service.answer(keyed('k8'), big)).rejects.toMatchObject({
      status: 409,
      metadata: { reason: 'idempotency_outcome_not_stored' },
    });
    expect(big).toHaveBeenCalledTimes(1);
    expect(published).toEqual([1, 1]);
  });

  it('Redis unreachable: a 503 before anything runs', async () => {
    const service = serviceWith({ publishDeferred: async () => undefined }, envOf({ REDIS_URL: 'redis://127.0.0.1:1' }));
    const work = generation('gen-9');
    await expect(service.answer(keyed('k9'), work)).rejects.toMatchObject({ status: 503, metadata: { reason: 'idempotency_unavailable' } });
    expect(work).not.toHaveBeenCalled();
  });
});

describe('IdempotentRequests (streams)', () => {
  it('replays the packets in order; those after the priced generation wait until it is stored and published', async () => {
    const order: string[] = [];
    const service = serviceWith({ publishDeferred: async () => void order.push('published') });
    const work = vi.fn(async (_signal: AbortSignal, emit: (packet: string) => void) => {
      emit('a');
      emit('b');
      currentIdempotentRun()!.defer(eventOf('gen-10'));
      emit('usage');
    });
    const guard = service.streamGuard(keyed('k10'))!;
    await guard.run(new AbortController().signal, (packet) => order.push(packet), work);
    expect(order).toEqual(['a', 'b', 'published', 'usage']);
    const replayed: string[] = [];
    await service.streamGuard(keyed('k10'))!.run(new AbortController().signal, (packet) => replayed.push(packet), work);
    expect(replayed).toEqual(['a', 'b', 'usage']);
    expect(work).toHaveBeenCalledTimes(1);
  });

  it('a stream cut after its first packets is stored with its error, and replayed so', async () => {
    const service = serviceWith({ publishDeferred: async () => undefined });
    const work = vi.fn(async (_signal: AbortSignal, emit: (packet: string) => void) => {
      emit('a');
      currentIdempotentRun()!.defer(eventOf('gen-11'));
      throw new GatewayError(502, 'provider stream broke', { errorType: 'provider_unavailable' });
    });
    await expect(service.streamGuard(keyed('k11'))!.run(new AbortController().signal, () => undefined, work)).rejects.toMatchObject({
      status: 502,
    });
    const replayed: string[] = [];
    await expect(
      service.streamGuard(keyed('k11'))!.run(new AbortController().signal, (packet) => replayed.push(packet), work),
    ).rejects.toMatchObject({ status: 502, message: 'provider stream broke' });
    expect(replayed).toEqual(['a']);
    expect(work).toHaveBeenCalledTimes(1);
  });
});
