import { Inject, Injectable, Logger } from '@nestjs/common';
import { SpendReleased, SpendReserve, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { randomUUID } from 'node:crypto';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';

/** Management answers with one locked read and one insert; longer than this and the call is refused, not run unreserved. */
const RESERVE_TIMEOUT_MS = 3_000;

interface Hold {
  id: string;
  workspaceId: string;
  amount: Prisma.Decimal;
  /** What this request's usage events charged so far (each settles that much of the hold). */
  charged: Prisma.Decimal;
}

/**
 * Spend held for a request's worst case before its first provider call (docs/adr/0093). The
 * hold is management's (one round trip, refused with its 402); each usage event of the request
 * names it, so management settles it as it counts the event; when the request ends, what no
 * event charged is released. Held per request (its principal object, which every step shares).
 */
@Injectable()
export class SpendHolds {
  private readonly logger = new Logger(SpendHolds.name);
  private readonly holds = new WeakMap<Principal, Hold>();
  private readonly ttlSeconds: number;

  constructor(
    private readonly rpc: RpcClient,
    private readonly nats: ResilientNatsConnection,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    this.ttlSeconds = env.SPEND_RESERVATION_TTL_SECONDS;
  }

  /** Throws management's 402 when the worst case does not fit, a 503 when it cannot be asked. */
  async reserve(principal: Principal, amount: Prisma.Decimal): Promise<void> {
    // Batch lines are charged with their batch (ADR 0046); a call that cannot charge holds nothing.
    if (principal.batchId || amount.lte(0) || this.holds.has(principal)) return;
    const id = randomUUID();
    try {
      await this.rpc.send(
        SpendReserve,
        {
          reservationId: id,
          workspaceId: principal.workspaceId,
          keyHash: principal.keyHash,
          amount: amount.toFixed(),
          ttlSeconds: this.ttlSeconds,
        },
        RESERVE_TIMEOUT_MS,
      );
    } catch (error) {
      if (!(error instanceof GatewayError) || error.status !== 504) throw error;
      // The request or its reply was lost (a NATS node restarting): nothing was run, so the call is
      // refused as safe to retry, and a hold management may have taken is given back.
      this.release(id, principal.workspaceId, amount);
      throw new GatewayError(503, 'Spend could not be reserved in time; nothing was run', {
        errorType: 'server',
        metadata: { reason: 'service_unavailable', retryable: true },
      });
    }
    this.holds.set(principal, { id, workspaceId: principal.workspaceId, amount, charged: new Prisma.Decimal(0) });
  }

  /** A generation of the request is being recorded: the reservation its usage event settles. */
  settle(principal: Principal, charged: Prisma.Decimal): string | undefined {
    const hold = this.holds.get(principal);
    if (!hold) return undefined;
    hold.charged = hold.charged.add(charged);
    return hold.id;
  }

  /** The request ended, answered or not: the rest of its hold is free (its events settle their part). */
  end(principal: Principal): void {
    const hold = this.holds.get(principal);
    if (!hold) return;
    this.holds.delete(principal);
    this.release(hold.id, hold.workspaceId, Prisma.Decimal.max(0, hold.amount.minus(hold.charged)));
  }

  private release(reservationId: string, workspaceId: string, unused: Prisma.Decimal): void {
    const data = { reservationId, workspaceId, unused: unused.toFixed() };
    try {
      this.nats.connection.publish(SpendReleased.subject, JSON.stringify({ pattern: SpendReleased.subject, data }));
    } catch (error) {
      // The hold then lapses at its expiry.
      this.logger.warn(`Could not release spend reservation ${reservationId}: ${(error as Error).message}`);
    }
  }

  /** Runs one request and ends its hold whatever happens. */
  async around<T>(principal: Principal, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } finally {
      this.end(principal);
    }
  }
}
