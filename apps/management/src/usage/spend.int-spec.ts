import type { INestMicroservice } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { PrismaPg } from '@prisma/adapter-pg';
import { EVENTS, SUBJECTS, type AuthResolveReply, type CreditsView, type KeysChangedEvent, type Principal } from '@gw/contracts';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startManagement } from '../spec-helpers.js';
import { AuthService } from '../auth/auth.service.js';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey, type OwnerRef } from '../keys/key-issuer.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { periodStart } from './usage-periods.js';
import { OidcClient } from '../identity/oidc-client.js';
import type { ManagementEnv } from '../env.js';

/** Credits, spend blocks in auth, and last_used_at batches, over NATS on a real PostgreSQL. */
describe('credits, spend enforcement and last-used times', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let owner: OwnerRef;
  let admin: Principal;
  let subscription: Subscription;
  const changed: string[][] = [];

  const resolve = (keyHash: string) => rpc.send<AuthResolveReply>(SUBJECTS.management.authResolve, { keyHash });
  const addCredits = (amount: string, as = admin, workspaceId?: string) =>
    rpc.send<CreditsView>(SUBJECTS.management.creditsAdd, { principal: as, amount, workspaceId });

  beforeAll(async () => {
    ({ service, nats, rpc } = await startManagement('spend-spec'));
    subscription = nats.connection.subscribe(EVENTS.keysChanged, {
      callback: (_error, message) => void changed.push(message.json<{ data: KeysChangedEvent }>().data.keyHashes),
    });
    owner = await createWorkspaceWithOwner(prisma, { workspaceName: 'Spend', email: `spend-${randomUUID()}@example.com`, userName: 'S' });
    admin = (await resolve((await issueKey(prisma, owner, { kind: 'management', name: 'admin' })).key.hash)).principal!;
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await nats?.close();
    await service?.close();
    await prisma.$disconnect();
  });

  it('blocks a workspace without credits, and unblocks it (telling the gateways) when credits are added', async () => {
    const app = await issueKey(prisma, owner, { kind: 'standard', name: 'app' });
    expect((await resolve(app.key.hash)).principal?.spendBlocked).toBe('insufficient_credits');
    expect(await rpc.send<CreditsView>(SUBJECTS.management.creditsGet, { principal: admin })).toEqual({ total_credits: 0, total_usage: 0 });

    expect(await addCredits('0.1')).toEqual({ total_credits: 0.1, total_usage: 0 });
    expect(await addCredits('0.2')).toEqual({ total_credits: 0.3, total_usage: 0 });
    const stored = await prisma.workspace.findUniqueOrThrow({ where: { id: owner.workspaceId } });
    expect(stored.creditsTotal.toFixed()).toBe('0.3'); // exact, not 0.30000000000000004
    expect(await prisma.creditGrant.count({ where: { workspaceId: owner.workspaceId } })).toBe(2);
    await expect.poll(() => changed.some((hashes) => hashes.includes(app.key.hash) && hashes.includes(admin.keyHash))).toBe(true);
    expect((await resolve(app.key.hash)).principal?.spendBlocked).toBeNull();
    // Any key of the workspace reads the totals.
    const appPrincipal = (await resolve(app.key.hash)).principal!;
    expect(await rpc.send<CreditsView>(SUBJECTS.management.creditsGet, { principal: appPrincipal })).toEqual({
      total_credits: 0.3,
      total_usage: 0,
    });
  });

  it('lets only a management key add credits, a positive amount, to a workspace it belongs to', async () => {
    const app = await issueKey(prisma, owner, { kind: 'standard', name: 'app2' });
    const appPrincipal = (await resolve(app.key.hash)).principal!;
    await expect(addCredits('1', appPrincipal)).rejects.toMatchObject({ status: 401, metadata: { reason: 'management_key_required' } });
    await expect(addCredits('0')).rejects.toMatchObject({ status: 400 });
    const other = await createWorkspaceWithOwner(prisma, {
      workspaceName: 'Other',
      email: `other-${randomUUID()}@example.com`,
      userName: 'O',
    });
    await expect(addCredits('1', admin, other.workspaceId)).rejects.toMatchObject({ status: 400 });
  });

  it('blocks a key at its limit in the current period, for no longer than until the reset', async () => {
    const now = new Date();
    const key = await issueKey(prisma, owner, { kind: 'standard', name: 'limited' });
    await prisma.apiKey.update({
      where: { hash: key.key.hash },
      data: {
        limit: new Prisma.Decimal('1'),
        limitReset: 'daily',
        usageDaily: new Prisma.Decimal('1'),
        dailyPeriodStart: periodStart('daily', now),
      },
    });
    // No OIDC issuer configured: identities are not what this test is about.
    const auth = new AuthService(prisma as PrismaService, new OidcClient({ OIDC_LOGIN_TTL_SECONDS: 600 } as ManagementEnv));
    const reply = await auth.resolve(key.key.hash, now);
    expect(reply.principal?.spendBlocked).toBe('key_limit_reached');
    const untilMidnight = Math.floor((periodStart('daily', new Date(now.getTime() + 86_400_000)).getTime() - now.getTime()) / 1000);
    expect(reply.ttlSeconds).toBeLessThanOrEqual(Math.min(60, untilMidnight));
    // Tomorrow the bucket is of a past period: free again.
    expect((await auth.resolve(key.key.hash, new Date(now.getTime() + 86_400_000))).principal?.spendBlocked).toBeNull();
    // BYOK spend counts only when the key says so.
    await prisma.apiKey.update({
      where: { hash: key.key.hash },
      data: { limit: new Prisma.Decimal('1.5'), usageDaily: new Prisma.Decimal('1'), byokUsageDaily: new Prisma.Decimal('0.5') },
    });
    expect((await auth.resolve(key.key.hash, now)).principal?.spendBlocked).toBeNull();
    await prisma.apiKey.update({ where: { hash: key.key.hash }, data: { includeByokInLimit: true } });
    expect((await auth.resolve(key.key.hash, now)).principal?.spendBlocked).toBe('key_limit_reached');
  });

  it('applies keys.used batches with one update that only moves last_used_at forward', async () => {
    const first = await issueKey(prisma, owner, { kind: 'standard', name: 'used-1' });
    const second = await issueKey(prisma, owner, { kind: 'standard', name: 'used-2' });
    const publish = async (entries: Array<{ keyHash: string; lastUsedAt: string }>) => {
      nats.connection.publish(EVENTS.keysUsed, JSON.stringify({ pattern: EVENTS.keysUsed, data: { entries } }));
      await nats.connection.flush();
    };
    const lastUsed = async (hash: string) => (await prisma.apiKey.findUniqueOrThrow({ where: { hash } })).lastUsedAt?.toISOString();
    await publish([
      { keyHash: first.key.hash, lastUsedAt: '2026-05-01T10:00:00.000Z' },
      { keyHash: second.key.hash, lastUsedAt: '2026-05-01T11:00:00.000Z' },
      { keyHash: 'f'.repeat(64), lastUsedAt: '2026-05-01T11:00:00.000Z' }, // unknown: ignored
    ]);
    await expect.poll(() => lastUsed(second.key.hash)).toBe('2026-05-01T11:00:00.000Z');
    expect(await lastUsed(first.key.hash)).toBe('2026-05-01T10:00:00.000Z');
    // An older batch (another gateway, late) does not move it back; a newer one moves it on.
    await publish([
      { keyHash: first.key.hash, lastUsedAt: '2026-05-01T09:00:00.000Z' },
      { keyHash: second.key.hash, lastUsedAt: '2026-05-01T12:00:00.000Z' },
    ]);
    await expect.poll(() => lastUsed(second.key.hash)).toBe('2026-05-01T12:00:00.000Z');
    expect(await lastUsed(first.key.hash)).toBe('2026-05-01T10:00:00.000Z');
    const view = await rpc.send<{ last_used_at: string }>(SUBJECTS.management.keysGet, { principal: admin, hash: second.key.hash });
    expect(view.last_used_at).toBe('2026-05-01T12:00:00.000Z');
  });

  it('ignores a malformed keys.used batch', async () => {
    const key = await issueKey(prisma, owner, { kind: 'standard', name: 'used-3' });
    nats.connection.publish(
      EVENTS.keysUsed,
      JSON.stringify({ pattern: EVENTS.keysUsed, data: { entries: [{ keyHash: key.key.hash, lastUsedAt: 'yesterday' }] } }),
    );
    await nats.connection.flush();
    // A well-formed batch after it is still applied: the handler did not die.
    nats.connection.publish(
      EVENTS.keysUsed,
      JSON.stringify({ pattern: EVENTS.keysUsed, data: { entries: [{ keyHash: key.key.hash, lastUsedAt: '2026-06-01T00:00:00.000Z' }] } }),
    );
    await expect
      .poll(async () => (await prisma.apiKey.findUniqueOrThrow({ where: { hash: key.key.hash } })).lastUsedAt?.toISOString())
      .toBe('2026-06-01T00:00:00.000Z');
  });
});
