import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { KeysChanged, SpendReleased, SpendReserve, type KeysChangedEvent, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { randomUUID } from 'node:crypto';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import { decideWaiters, type TopUpOutcome } from './lease-waiters.js';
import { SpendLease, type LeaseTicket } from './spend-lease.js';

/** Management answers with one locked read and one upsert; longer than this and the call is refused, not run unreserved. */
const RESERVE_TIMEOUT_MS = 3_000;
/** A lease no call has used this long is given back, so other replicas may have it. */
const IDLE_MS = 5_000;
/**
 * Spend held for a call's worst case before its first provider call. Management holds a lease
 * per key for this replica, topped up a chunk of calls at a time; calls take their worst case
 * from it locally, so most calls cost no round trip. Each usage event names the lease, so
 * management settles it as it counts the event; a retired lease's unused part is released.
 */
@Injectable()
export class SpendHolds implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SpendHolds.name);
  private readonly leases = new Map<string, SpendLease>();
  private readonly tickets = new WeakMap<Principal, LeaseTicket>();
  private readonly ttlSeconds: number;
  private readonly leaseCalls: number;
  private readonly maxAgeMs: number;
  private sweeper: NodeJS.Timeout | undefined;
  private subscription: Subscription | undefined;

  constructor(
    private readonly rpc: RpcClient,
    private readonly nats: ResilientNatsConnection,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    this.ttlSeconds = env.SPEND_RESERVATION_TTL_SECONDS;
    this.leaseCalls = env.SPEND_LEASE_CALLS;
    // Retired well before management lets it lapse, so a running call's hold outlives it.
    this.maxAgeMs = Math.min(60_000, (this.ttlSeconds * 1_000) / 4);
  }

  onModuleInit(): void {
    this.sweeper = setInterval(() => this.sweep(Date.now()), 1_000).unref();
    // A key whose limit changed is leased again under the new limit.
    this.subscription = this.nats.connection.subscribe(KeysChanged.subject, {
      callback: (_error, message) => {
        try {
          for (const hash of message.json<{ data?: KeysChangedEvent }>().data?.keyHashes ?? []) this.retire(hash);
        } catch {
          this.logger.warn('Ignored a malformed keys-changed event');
        }
      },
    });
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
    this.subscription?.unsubscribe();
    for (const hash of [...this.leases.keys()]) this.retire(hash);
  }

  /** Throws management's 402 when the worst case does not fit, a 503 when it cannot be asked. */
  async reserve(principal: Principal, worst: Prisma.Decimal): Promise<void> {
    // Batch lines are charged with their batch; a call that cannot charge holds nothing.
    if (principal.batchId || worst.lte(0) || this.tickets.has(principal)) return;
    const lease = this.leaseOf(principal, Date.now());
    // Calls queued for a top-up go first: a newcomer takes from the lease only when none waits.
    const ticket = lease.waiting.length === 0 ? lease.take(worst, Date.now()) : undefined;
    this.tickets.set(principal, ticket ?? (await this.wait(principal, lease, worst)));
  }

  /** A generation of the request is being recorded: the lease its usage event settles. */
  settle(principal: Principal, charged: Prisma.Decimal): string | undefined {
    const ticket = this.tickets.get(principal);
    if (!ticket) return undefined;
    ticket.lease.charge(ticket, charged);
    return ticket.lease.id;
  }

  /** The request ended, answered or not: the rest of its worst case is free on the lease again. */
  end(principal: Principal): void {
    const ticket = this.tickets.get(principal);
    if (!ticket) return;
    this.tickets.delete(principal);
    const lease = ticket.lease;
    lease.end(ticket);
    if (lease.scarce && lease.idle && !lease.retired && !lease.topUp) this.retire(lease.keyHash);
    else if (lease.retired && lease.idle && !lease.topUp) this.release(lease);
  }

  /** Runs one request and ends its hold whatever happens. */
  async around<T>(principal: Principal, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } finally {
      this.end(principal);
    }
  }

  private leaseOf(principal: Principal, now: number): SpendLease {
    let lease = this.leases.get(principal.keyHash);
    if (lease && now - lease.openedAt > this.maxAgeMs) {
      this.retire(principal.keyHash);
      lease = undefined;
    }
    if (!lease) {
      lease = new SpendLease(randomUUID(), principal.workspaceId, principal.keyHash, now);
      this.leases.set(principal.keyHash, lease);
    }
    return lease;
  }

  /** Queues the call on the lease; the top-up in flight, or one started now, decides it. */
  private wait(principal: Principal, lease: SpendLease, worst: Prisma.Decimal): Promise<LeaseTicket> {
    return new Promise((resolve, reject) => {
      const redirect = () => {
        const next = this.leaseOf(principal, Date.now());
        const ticket = next.waiting.length === 0 ? next.take(worst, Date.now()) : undefined;
        resolve(ticket ?? this.wait(principal, next, worst));
      };
      lease.waiting.push({ worst, resolve, reject, redirect });
      if (!lease.topUp) this.startTopUp(lease);
    });
  }

  /** One top-up for all the calls queued on the lease: at least what the first lacks, as much as all lack. */
  private startTopUp(lease: SpendLease): void {
    const free = Prisma.Decimal.max(0, lease.free);
    const head = lease.waiting[0]!.worst;
    const queued = lease.waiting.reduce((sum, waiter) => sum.add(waiter.worst), new Prisma.Decimal(0));
    const minimum = head.minus(free);
    const wanted = Prisma.Decimal.max(minimum, Prisma.Decimal.max(head.mul(this.leaseCalls), queued).minus(free));
    lease.topUp = this.topUp(lease, minimum, wanted)
      .then(
        (): TopUpOutcome => ({ kind: 'granted' }),
        (error: unknown): TopUpOutcome =>
          error instanceof GatewayError && error.status === 402 ? { kind: 'refused', minimum, error } : { kind: 'failed', error },
      )
      .then((outcome) => {
        lease.topUp = undefined;
        decideWaiters(lease, outcome, Date.now());
        if (lease.waiting.length > 0) this.startTopUp(lease);
        else if (lease.idle && lease.retired) this.release(lease);
        else if (lease.idle && lease.scarce) this.retire(lease.keyHash);
      });
  }

  private async topUp(lease: SpendLease, minimum: Prisma.Decimal, wanted: Prisma.Decimal): Promise<void> {
    let granted: string;
    try {
      ({ granted } = await this.rpc.send(
        SpendReserve,
        {
          reservationId: lease.id,
          workspaceId: lease.workspaceId,
          keyHash: lease.keyHash,
          minimum: minimum.toFixed(),
          wanted: wanted.toFixed(),
          ttlSeconds: this.ttlSeconds,
        },
        RESERVE_TIMEOUT_MS,
      ));
    } catch (error) {
      // Refused: the key is at a limit, so the lease is given back as soon as it is idle.
      if (error instanceof GatewayError && error.status === 402) lease.scarce = true;
      if (!(error instanceof GatewayError) || error.status !== 504) throw error;
      // The request or its reply was lost (a NATS node restarting): nothing was run, so the calls are
      // refused as safe to retry, and what management may have added is given back with the lease.
      lease.uncertain = lease.uncertain.add(wanted);
      this.retire(lease.keyHash);
      throw new GatewayError(503, 'Spend could not be reserved in time; nothing was run', {
        errorType: 'server',
        metadata: { reason: 'service_unavailable', retryable: true },
      });
    }
    lease.granted = lease.granted.add(granted);
    lease.scarce = wanted.gt(granted);
  }

  /** No new call takes the key's lease; it is released once its running calls end. */
  private retire(keyHash: string): void {
    const lease = this.leases.get(keyHash);
    if (!lease) return;
    this.leases.delete(keyHash);
    lease.retired = true;
    if (lease.idle && !lease.topUp) this.release(lease);
  }

  private sweep(now: number): void {
    for (const [hash, lease] of this.leases)
      if ((lease.idle && now - lease.lastUsedAt > IDLE_MS) || now - lease.openedAt > this.maxAgeMs) this.retire(hash);
  }

  private release(lease: SpendLease): void {
    if (lease.released) return;
    lease.released = true;
    if (lease.granted.lte(0) && lease.uncertain.lte(0)) return;
    const data = { reservationId: lease.id, workspaceId: lease.workspaceId, unused: lease.unused.toFixed() };
    try {
      this.nats.connection.publish(SpendReleased.subject, JSON.stringify({ pattern: SpendReleased.subject, data }));
    } catch (error) {
      // The lease then lapses at its expiry.
      this.logger.warn(`Could not release spend lease ${lease.id}: ${(error as Error).message}`);
    }
  }
}
