import type { INestMicroservice } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { SUBJECTS, type ConsoleOperatorSessionReply, type ConsoleSessionView } from '@gw/contracts';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { testDatabaseUrl } from '@gw/testing';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey, type IssuedKey, type OwnerRef } from '../keys/key-issuer.js';
import { startManagement } from '../spec-helpers.js';

const m = SUBJECTS.management;
const sessionHash = () => randomBytes(32).toString('hex');
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** The console's key sign-in and operator sessions, over NATS as the gateway sends them. */
describe('console sessions from a management key, and operator sessions', () => {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: testDatabaseUrl(inject('databasePrefix'), 'management') }) });
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let owner: OwnerRef;
  let admin: IssuedKey;

  beforeAll(async () => {
    ({ service, nats, rpc } = await startManagement('console-sessions-spec'));
    owner = await createWorkspaceWithOwner(prisma, {
      workspaceName: 'Console',
      email: `console-${crypto.randomUUID()}@example.com`,
      userName: 'Ada',
    });
    admin = await issueKey(prisma, owner, { kind: 'management', name: 'automation' });
  });

  afterAll(async () => {
    await nats?.close();
    await service?.close();
    await prisma.$disconnect();
  });

  const openWithKey = (presented: string, expiresAt = inAnHour(), keyHash = sessionHash()) =>
    rpc.send<ConsoleSessionView>(m.consoleSessionOpenWithKey, { presented_key_hash: presented, key_hash: keyHash, expires_at: expiresAt });

  it('exchanges a management key for a session key of its creator, in its workspace, expiring no later than it', async () => {
    const keyHash = sessionHash();
    const view = await openWithKey(admin.key.hash, inAnHour(), keyHash);
    expect(view).toMatchObject({ user_id: owner.userId, workspace_id: owner.workspaceId, role: 'owner', key_kind: 'management' });
    const stored = await prisma.apiKey.findUniqueOrThrow({ where: { hash: keyHash } });
    expect(stored).toMatchObject({
      name: 'console session',
      kind: 'management',
      creatorUserId: owner.userId,
      workspaceId: owner.workspaceId,
    });

    const soon = new Date(Date.now() + 600_000);
    await prisma.apiKey.update({ where: { hash: admin.key.hash }, data: { expiresAt: soon } });
    const capped = sessionHash();
    await openWithKey(admin.key.hash, inAnHour(), capped);
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { hash: capped } })).expiresAt).toEqual(soon);
    await prisma.apiKey.update({ where: { hash: admin.key.hash }, data: { expiresAt: null } });
  });

  it('refuses a standard key, a disabled or unknown key, and a console session key', async () => {
    const refused = { status: 401, metadata: { reason: 'management_key_required' } };
    const standard = await issueKey(prisma, owner, { kind: 'standard', name: 'app' });
    await expect(openWithKey(standard.key.hash)).rejects.toMatchObject(refused);
    await expect(openWithKey(sessionHash())).rejects.toMatchObject(refused);
    const session = sessionHash();
    await openWithKey(admin.key.hash, inAnHour(), session);
    await expect(openWithKey(session)).rejects.toMatchObject(refused);
    const disabled = await issueKey(prisma, owner, { kind: 'management', name: 'old' });
    await prisma.apiKey.update({ where: { hash: disabled.key.hash }, data: { disabled: true } });
    await expect(openWithKey(disabled.key.hash)).rejects.toMatchObject(refused);
  });

  it('keeps operator sessions as rows: live until ended, one or all of an operator', async () => {
    const send = (subject: string, body: Record<string, unknown>) => rpc.send<ConsoleOperatorSessionReply>(subject, body);
    const [first, second, other] = [sessionHash(), sessionHash(), sessionHash()];
    for (const [hash, operator] of [
      [first, 'platform'],
      [second, 'platform'],
      [other, 'oncall'],
    ] as const) {
      await send(m.consoleOperatorSessionOpen, { key_hash: hash, operator, expires_at: inAnHour() });
    }
    const live = async (hash: string, operator: string) => (await send(m.consoleOperatorSessionCheck, { key_hash: hash, operator })).live;
    expect(await live(first, 'platform')).toBe(true);
    // A session names its operator: the same hash under another name is no session.
    expect(await live(first, 'oncall')).toBe(false);
    expect((await send(m.consoleOperatorSessionEnd, { key_hash: first, operator: 'platform' })).ended).toBe(1);
    expect(await live(first, 'platform')).toBe(false);
    expect(await live(second, 'platform')).toBe(true);
    await send(m.consoleOperatorSessionOpen, { key_hash: first, operator: 'platform', expires_at: inAnHour() });
    expect((await send(m.consoleOperatorSessionEnd, { key_hash: first, operator: 'platform', everywhere: true })).ended).toBe(2);
    expect(await live(second, 'platform')).toBe(false);
    expect(await live(other, 'oncall')).toBe(true);
    await expect(send(m.consoleOperatorSessionOpen, { key_hash: sessionHash(), operator: 'platform' })).rejects.toMatchObject({
      status: 400,
    });
  });
});
