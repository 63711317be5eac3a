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

describe('SpendHolds (calls queued on a contended lease)', () => {
  const statuses = (outcomes: PromiseSettledResult<unknown>[]) =>
    outcomes.map((o) => (o.status === 'fulfilled' ? 200 : (o.reason as GatewayError).status));

  it('serves every call a nearly spent budget covers and refuses the rest with 402, never 503, at 500 concurrent', async () => {
    // 500 worst cases of 0.0012 are 0.6: 458 fit in 0.55, granted in halving steps.
    const management = new FakeManagement(D('0.55'));
    const holds = holdsOn(management);
    const outcomes = await Promise.allSettled(Array.from({ length: 500 }, () => holds.reserve(principal(), D('0.0012'))));
    const answered = statuses(outcomes);
    expect(answered.filter((status) => status === 200)).toHaveLength(458);
    expect(answered.filter((status) => status !== 200 && status !== 402)).toEqual([]);
    expect(management.held.lte('0.55')).toBe(true);
  });

  it('asks once for all the calls queued behind the top-up in flight when the budget covers them', async () => {
    const management = new FakeManagement(D(1_000));
    const holds = holdsOn(management);
    await Promise.all(Array.from({ length: 100 }, () => holds.reserve(principal(), D('0.01'))));
    // The first call's top-up leaves before the others queue; the second covers all 99 (not 32 at a time).
    expect(management.reserves).toBe(2);
  });

  it('serves queued calls first come first served', async () => {
    const management = new FakeManagement(D('0.01'));
    const holds = holdsOn(management);
    const order: number[] = [];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => holds.reserve(principal(), D('0.0012')).then(() => order.push(i))),
    );
    expect(statuses(outcomes)).toEqual([...Array(8).fill(200), ...Array(4).fill(402)]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('refuses a call dearer than what management can grant with its own 402, and still serves the cheap calls behind it', async () => {
    const management = new FakeManagement(D('0.5'));
    const holds = holdsOn(management);
    const dear = holds.reserve(principal(), D('0.9'));
    const cheap = Array.from({ length: 5 }, () => holds.reserve(principal(), D('0.05')));
    await expect(dear).rejects.toMatchObject({
      status: 402,
      errorType: 'payment_required',
      metadata: { reason: 'key_limit_reached', reserved_cost: 0.9 },
    });
    expect(statuses(await Promise.allSettled(cheap))).toEqual([200, 200, 200, 200, 200]);
  });

  it('decides a dear call and many cheap ones behind it exactly: all that fit run, the rest get 402', async () => {
    const management = new FakeManagement(D(1));
    const holds = holdsOn(management);
    const outcomes = await Promise.allSettled([
      holds.reserve(principal(), D('0.9')),
      ...Array.from({ length: 100 }, () => holds.reserve(principal(), D('0.01'))),
    ]);
    const answered = statuses(outcomes);
    expect(answered[0]).toBe(200);
    // What is left after the dear call (0.1) is granted in halving steps, each covering at least one call.
    expect(answered.filter((status) => status === 200)).toHaveLength(11);
    expect(answered.filter((status) => status !== 200 && status !== 402)).toEqual([]);
  });

  it('refuses every call queued on a lost reply with one retryable 503, without asking again', async () => {
    const management = new FakeManagement(D(100));
    const holds = holdsOn(management);
    management.fail = 'timeout';
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => holds.reserve(principal(), D(1))));
    expect(statuses(outcomes)).toEqual(Array(20).fill(503));
    expect(management.reserves).toBe(1);
  });

  it("moves calls queued on a lease retired meanwhile to the key's next lease", async () => {
    const management = new FakeManagement(D(100));
    const holds = holdsOn(management, 4);
    const waiting = Array.from({ length: 3 }, () => holds.reserve(principal(), D(1)));
    holds.onApplicationShutdown();
    expect(statuses(await Promise.allSettled(waiting))).toEqual([200, 200, 200]);
    // The retired lease's grant is given back whole; the calls run on a second lease.
    expect(management.released).toMatchObject([{ unused: '4' }]);
    expect(management.leases.size).toBe(2);
  });
});
