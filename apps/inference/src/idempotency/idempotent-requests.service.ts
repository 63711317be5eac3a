import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { IdempotencyRef, Principal, UsageRecordedEvent } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { JsonAnswer } from '@gw/messaging';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { GenerationUsagePublisher } from '../usage/generation-usage-publisher.service.js';
import { IdempotencyStore } from './idempotency-store.js';
import { IdempotentRun, runIdempotently, type StreamGuard } from './idempotent-run.js';
import { clientErrorOf, errorOfStored, serialiseOutcome, storedErrorOf, worthRetrying, type StoredOutcome } from './stored-outcome.js';

/** A claim's lease: a replica that dies running a request holds its key this long at most. */
const LEASE_MS = 6_000;
/** How often a waiting retry looks again. */
const POLL_MS = 200;

interface KeyedRequest {
  principal: Principal;
  idempotency?: IdempotencyRef;
}

type Emit = (packet: string) => void;

/**
 * Requests with an `Idempotency-Key` (ADR in docs/adr, "idempotent retries"): the first claims
 * the key (scoped to its workspace and API key) in Redis; its outcome is stored there before its
 * usage events are published, and every retry with the same route and body gets that outcome
 * and publishes the same events again (counted once by generation id), so it is never billed
 * twice, even when the first answer was lost with its replica or its reply. A different body is
 * a 422; a retry while the first runs waits for it (a dead replica's lease lapses) or gets a 409.
 * Redis down: 503 before anything runs (the key promises at most one charge; nothing is paid).
 */
@Injectable()
export class IdempotentRequests implements OnModuleDestroy {
  private readonly logger = new Logger(IdempotentRequests.name);
  private readonly store: IdempotencyStore;
  private readonly maxBytes: number;
  private readonly waitMs: number;
  private readonly replica = randomUUID();

  constructor(
    private readonly usage: GenerationUsagePublisher,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    this.store = new IdempotencyStore({
      redisUrl: env.REDIS_URL,
      keyPrefix: env.REDIS_KEY_PREFIX,
      ttlMs: env.IDEMPOTENCY_TTL_SECONDS * 1000,
      leaseMs: LEASE_MS,
    });
    this.maxBytes = env.IDEMPOTENCY_MAX_BYTES;
    this.waitMs = env.IDEMPOTENCY_WAIT_MS;
  }

  /** A non-streamed front door's run, or its stored outcome. */
  async answer<T>(request: KeyedRequest, work: () => Promise<T>): Promise<T> {
    if (!request.idempotency) return work();
    const key = scopedKey(request.principal, request.idempotency);
    const owner = `${this.replica}:${randomUUID()}`;
    const found = await this.acquire(key, request.idempotency.fingerprint, owner);
    if (found) {
      await this.republish(found.events);
      if (found.kind === 'answer') return found.answer as T;
      if (found.kind === 'error') throw errorOfStored(found.error);
      throw found.kind === 'unstored' ? notStored() : reused();
    }
    const run = new IdempotentRun();
    const lease = this.keepLease(key, owner);
    try {
      let answer: T;
      try {
        answer = await runIdempotently(run, work);
      } catch (error) {
        await this.finishFailed(key, owner, run.events, [], error);
        throw error;
      }
      // A cache hit's pre-serialised answer is kept as the JSON it carries.
      const stored: unknown = answer instanceof JsonAnswer ? JSON.parse(answer.text) : answer;
      await this.finish(key, owner, { kind: 'answer', answer: stored, events: run.events });
      return answer;
    } finally {
      lease.stop();
    }
  }

  /** For `withCancellation`: a streamed front door's run, or its stored packets replayed in the same framing. */
  streamGuard(request: KeyedRequest): StreamGuard | undefined {
    const ref = request.idempotency;
    if (!ref) return undefined;
    const key = scopedKey(request.principal, ref);
    return { run: (signal, emit, work, whenOpen) => this.stream(key, ref.fingerprint, signal, emit, work, whenOpen) };
  }

  private async stream(
    key: string,
    fingerprint: string,
    signal: AbortSignal,
    emit: Emit,
    work: (signal: AbortSignal, emit: Emit) => Promise<void>,
    whenOpen?: () => Promise<void> | undefined,
  ): Promise<void> {
    const owner = `${this.replica}:${randomUUID()}`;
    const found = await this.acquire(key, fingerprint, owner);
    if (found) {
      await this.republish(found.events);
      if (found.kind === 'stream') {
        for (const packet of found.packets) {
          if (signal.aborted) return;
          await whenOpen?.();
          emit(packet);
        }
        if (found.error) throw errorOfStored(found.error);
        return;
      }
      if (found.kind === 'error') throw errorOfStored(found.error);
      throw found.kind === 'unstored' ? notStored() : reused();
    }
    const run = new IdempotentRun();
    const packets: string[] = [];
    let bytes = 0;
    let overflow = false;
    // Packets after a generation was priced (the usage chunk, the end) wait until its outcome is
    // stored and its event acknowledged, as every answer waits for its usage event.
    const held: string[] = [];
    const guarded: Emit = (packet) => {
      if (!overflow) {
        bytes += Buffer.byteLength(packet);
        if (bytes > this.maxBytes) {
          overflow = true;
          packets.length = 0;
        } else packets.push(packet);
      }
      if (run.events.length > 0) held.push(packet);
      else emit(packet);
    };
    const lease = this.keepLease(key, owner);
    try {
      try {
        await runIdempotently(run, () => work(signal, guarded));
      } catch (error) {
        await this.finishFailed(key, owner, run.events, overflow ? undefined : packets, error);
        for (const packet of held) emit(packet);
        throw error;
      }
      await this.finish(key, owner, overflow ? { kind: 'unstored', events: run.events } : { kind: 'stream', packets, events: run.events });
      for (const packet of held) emit(packet);
    } finally {
      lease.stop();
    }
  }

  /** Claims the key, or returns its stored outcome; waits while another request runs with it. */
  private async acquire(key: string, fingerprint: string, owner: string): Promise<StoredOutcome | undefined> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      let claim;
      try {
        claim = await this.store.claim(key, fingerprint, owner);
      } catch (error) {
        this.logger.warn(`Idempotency store unavailable: ${(error as Error).message}`);
        throw unavailable();
      }
      if (claim.kind === 'claimed') {
        if (claim.takeover) this.logger.warn('Took over an idempotency key whose first request stopped renewing its claim');
        return undefined;
      }
      if (claim.kind === 'mismatch') throw reused();
      if (claim.kind === 'done') return JSON.parse(claim.outcome) as StoredOutcome;
      if (Date.now() >= deadline) throw inProgress();
      await sleep(POLL_MS);
    }
  }

  /**
   * Stores the outcome, then publishes its events (the order that makes a lost answer replayable:
   * a replica that dies between the two leaves an outcome whose retry publishes them).
   */
  private async finish(key: string, owner: string, outcome: StoredOutcome): Promise<void> {
    try {
      if (!(await this.store.complete(key, owner, serialiseOutcome(outcome, this.maxBytes))))
        this.logger.warn('An idempotent request finished after its claim was taken over; its outcome was not stored');
    } catch (error) {
      // Answered and paid: the answer still goes out; a retry of it would run again.
      this.logger.error(`Outcome of an idempotent request not stored: ${(error as Error).message}`);
    }
    await this.republish(outcome.events);
  }

  /** A failure that billed nothing and that a retry may fix gives the key up; any other is the outcome. */
  private async finishFailed(
    key: string,
    owner: string,
    events: UsageRecordedEvent[],
    packets: string[] | undefined,
    error: unknown,
  ): Promise<void> {
    const clientError = clientErrorOf(error);
    if (events.length === 0 && worthRetrying(clientError)) {
      await this.store.release(key, owner).catch(() => undefined);
      return;
    }
    const stored = storedErrorOf(clientError);
    const outcome: StoredOutcome = !packets
      ? { kind: 'unstored', events }
      : packets.length > 0
        ? { kind: 'stream', packets, error: stored, events }
        : { kind: 'error', error: stored, events };
    // The run's own error is what its client gets; a failed publish leaves the events in the outbox.
    await this.finish(key, owner, outcome).catch(() => undefined);
  }

  private async republish(events: UsageRecordedEvent[]): Promise<void> {
    if (events.length > 0) await this.usage.publishDeferred(events);
  }

  private keepLease(key: string, owner: string): { stop(): void } {
    const timer = setInterval(() => {
      this.store.renew(key, owner).then(
        (held) => {
          if (!held) clearInterval(timer);
        },
        () => undefined,
      );
    }, LEASE_MS / 3);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }

  async onModuleDestroy(): Promise<void> {
    await this.store.close();
  }
}

/** The store's key: the client's key within its workspace and API key, as a digest. */
function scopedKey(principal: Principal, ref: IdempotencyRef): string {
  const digest = createHash('sha256').update(`${principal.workspaceId}\n${principal.keyHash}\n${ref.key}`).digest('hex');
  return `idem:${digest}`;
}

function reused(): GatewayError {
  return new GatewayError(422, 'This Idempotency-Key was already used with a different request (route or body)', {
    errorType: 'unprocessable',
    metadata: { reason: 'idempotency_key_reused', retryable: false },
  });
}

function inProgress(): GatewayError {
  return new GatewayError(409, 'A request with this Idempotency-Key is still running; retry after it ends', {
    metadata: { reason: 'idempotency_key_in_use', retryable: true },
  });
}

function unavailable(): GatewayError {
  return new GatewayError(503, 'Idempotency keys cannot be checked now; nothing was run', {
    errorType: 'server',
    metadata: { reason: 'idempotency_unavailable', retryable: true },
  });
}

function notStored(): GatewayError {
  return new GatewayError(409, 'The request with this Idempotency-Key was answered and billed; its outcome was too large to keep', {
    metadata: { reason: 'idempotency_outcome_not_stored', retryable: false },
  });
}
