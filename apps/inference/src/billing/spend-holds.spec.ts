import type { Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { describe, expect, it } from 'vitest';
import type { InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import { SpendHolds } from './spend-holds.service.js';

const D = (value: string | number) => new Prisma.Decimal(value);

/**
 * Management's grant rule with its budget in memory (the SQL is tested against PostgreSQL in
 * management): at least the minimum, at most what is wanted, never more than half of what is free
 * beyond the minimum. Counts round trips and records releases.
 */
class FakeManagement {
  held = D(0);
  reserves = 0;
  fail: 'timeout' | undefined;
  readonly released: { reservationId: string; unused: string }[] = [];
  readonly leases = new Set<string>();

  constructor(private readonly budget: Prisma.Decimal) {}

  readonly rpc = {
    send: async (_message: unknown, request: { reservationId: string; minimum: string; wanted: string }) => {
      this.reserves++;
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (this.fail === 'timeout') throw new GatewayError(504, 'timed out', { errorType: 'timeout' });
      const free = this.budget.minus(this.held);
      const minimum = D(request.minimum);
      if (free.lt(minimum)) throw new GatewayError(402, 'no', { errorType: 'payment_required', metadata: { reason: 'key_limit_reached' } });
      const granted = Prisma.Decimal.min(D(request.wanted), Prisma.Decimal.max(minimum, free.div(2)));
      this.held = this.held.add(granted);
      this.leases.add(request.reservationId);
      return { granted: granted.toFixed() };
    },
  } as unknown as RpcClient;

  readonly nats = {
    connection: {
      publish: (_subject: string, body: string) => this.released.push(JSON.parse(body).data),
      subscribe: () => ({ unsubscribe: () => undefined }),
    },
  } as unknown as ResilientNatsConnection;
}

const principal = (): Principal => ({ workspaceId: 'w-1', keyHash: 'k'.repeat(64) }) as unknown as Principal;

function holdsOn(management: FakeManagement, leaseCalls = 32): SpendHolds {
  const env = { SPEND_RESERVATION_TTL_SECONDS: 900, SPEND_LEASE_CALLS: leaseCalls } as InferenceEnv;
  return new SpendHolds(management.rpc, management.nats, env);
}

describe('SpendHolds (leases)', () => {
  it('runs 50 concurrent calls within the budget: exactly as many as fit, the rest refused with 402, few round trips', async () => {
    const management = new FakeManagement(D('0.01'));
    const holds = holdsOn(management);
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => holds.reserve(principal(), D('0.0012'))));
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(outcomes.length - refused.length).toBe(8);
    for (const o of refused) expect(o.reason).toMatchObject({ status: 402 });
    expect(management.held.lte('0.01')).toBe(true);
    expect(management.reserves).toBeLessThan(12);
  });

  it('reserves most calls locally: 1,000 sequential calls cost a round trip per 32', async () => {
    const management = new FakeManagement(D(1_000));
    const holds = holdsOn(management);
    for (let i = 0; i < 1_000; i++) {
      const caller = principal();
      await holds.around(caller, async () => {
        await holds.reserve(caller, D('0.01'));
        holds.settle(caller, D('0.004'));
      });
    }
    // Each ended call keeps only its charge committed, so a lease of 32 worst cases serves 80 calls.
    expect(management.reserves).toBeLessThanOrEqual(13);
  });

  it('settles against the lease and gives back what its calls did not charge when it is retired', async () => {
    const management = new FakeManagement(D(100));
    const holds = holdsOn(management, 4);
    const caller = principal();
    await holds.reserve(caller, D(1));
    const leaseId = holds.settle(caller, D('0.25'));
    expect(management.leases.has(leaseId!)).toBe(true);
    holds.end(caller);
    holds.onApplicationShutdown();
    expect(management.released).toEqual([{ reservationId: leaseId, workspaceId: 'w-1', unused: '3.75' }]);
  });

  it('keeps a running call committed at its worst case until it ends, even after the lease retires', async () => {
    const management = new FakeManagement(D(100));
    const holds = holdsOn(management, 2);
    const running = principal();
    await holds.reserve(running, D(1));
    holds.onApplicationShutdown();
    expect(management.released).toEqual([]);
    holds.settle(running, D('0.5'));
    holds.end(running);
    expect(management.released).toMatchObject([{ unused: '1.5' }]);
  });

  it('gives a lease back as soon as it is idle when its key is near a limit (it got less than it wanted)', async () => {
    const management = new FakeManagement(D('0.002'));
    const holds = holdsOn(management);
    const caller = principal();
    await holds.reserve(caller, D('0.0012'));
    expect(management.released).toEqual([]);
    holds.end(caller);
    expect(management.released).toMatchObject([{ unused: '0.0012' }]);
  });

  it('keeps a lease that got all it wanted while idle, for the next calls', async () => {
    const management = new FakeManagement(D(100));
    const holds = holdsOn(management);
    for (let i = 0; i < 3; i++) {
      const caller = principal();
      await holds.reserve(caller, D('0.01'));
      holds.end(caller);
    }
    expect(management.released).toEqual([]);
    expect(management.reserves).toBe(1);
  });

  it('counts what its lease holds unused toward a dearer call, so a call that fits is never refused', async () => {
    const management = new FakeManagement(D(1));
    const holds = holdsOn(management);
    const cheap = principal();
    await holds.reserve(cheap, D('0.01'));
    holds.end(cheap);
    // The lease keeps 0.32 of the 1.0; a call of 0.9 needs only 0.58 more.
    const dear = principal();
    await holds.reserve(dear, D('0.9'));
    expect(management.held.lte(1)).toBe(true);
  });

  it('refuses with a retryable 503 when management does not answer, and gives back what it may have granted', async () => {
    const management = new FakeManagement(D(100));
    const holds = holdsOn(management, 4);
    management.fail = 'timeout';
    await expect(holds.reserve(principal(), D(1))).rejects.toMatchObject({ status: 503, metadata: { retryable: true } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(management.released).toMatchObject([{ unused: '4' }]);
  });

  it('lets a call that no top-up can cover wait for the one in flight instead of asking again', async () => {
    const management = new FakeManagement(D('0.001'));
    const holds = holdsOn(management);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => holds.reserve(principal(), D('0.0012'))));
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(management.reserves).toBe(1);
  });
});
