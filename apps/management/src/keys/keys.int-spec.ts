import type { INestMicroservice } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { SUBJECTS, type ApiKeyView, type AuthResolveReply, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { testDatabaseUrl } from '@gw/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startManagement } from '../spec-helpers.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey, type IssuedKey, type OwnerRef } from './key-issuer.js';

/** The management service on a real NATS and PostgreSQL, called the way the gateway calls it. */
describe('management keys and auth over NATS', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let owner: OwnerRef;
  let stranger: OwnerRef;
  let managementKey: IssuedKey;
  let standardKey: IssuedKey;
  let disabledKey: IssuedKey;
  let strangerKey: IssuedKey;
  let principal: Principal;

  beforeAll(async () => {
    ({ service, nats, rpc } = await startManagement('management-spec'));
    const suffix = crypto.randomUUID();
    owner = await createWorkspaceWithOwner(prisma, { workspaceName: 'Mine', email: `owner-${suffix}@example.com`, userName: 'Owner' });
    stranger = await createWorkspaceWithOwner(prisma, { workspaceName: 'Theirs', email: `other-${suffix}@example.com`, userName: 'Other' });
    await prisma.workspace.update({ where: { id: owner.workspaceId }, data: { creditsTotal: 10 } });
    managementKey = await issueKey(prisma, owner, { kind: 'management', name: 'admin' });
    standardKey = await issueKey(prisma, owner, { kind: 'standard', name: 'app' });
    disabledKey = await issueKey(prisma, owner, { kind: 'standard', name: 'old' });
    await prisma.apiKey.update({ where: { hash: disabledKey.key.hash }, data: { disabled: true } });
    strangerKey = await issueKey(prisma, stranger, { kind: 'management', name: 'theirs' });
    const resolved = await rpc.send<AuthResolveReply>(SUBJECTS.management.authResolve, { keyHash: managementKey.key.hash });
    principal = resolved.principal!;
  });

  afterAll(async () => {
    await nats?.close();
    await service?.close();
    await prisma.$disconnect();
  });

  it('resolves a key hash to its principal with a bounded cache time', async () => {
    expect(principal).toEqual({
      workspaceId: owner.workspaceId,
      keyHash: managementKey.key.hash,
      keyKind: 'management',
      userId: owner.userId,
      internId: null,
      hasPersonalIdentity: false,
      identitySubject: null,
      spendBlocked: null,
      rateLimits: null,
    });
    const reply = await rpc.send<AuthResolveReply>(SUBJECTS.management.authResolve, { keyHash: standardKey.key.hash });
    expect(reply.ttlSeconds).toBeGreaterThan(0);
    expect(reply.ttlSeconds).toBeLessThanOrEqual(60);
  });

  it('refuses unknown, disabled and expired keys', async () => {
    const expired = await issueKey(prisma, owner, { kind: 'standard', name: 'expired' });
    await prisma.apiKey.update({ where: { hash: expired.key.hash }, data: { expiresAt: new Date(Date.now() - 1000) } });
    for (const keyHash of ['0'.repeat(64), disabledKey.key.hash, expired.key.hash]) {
      const reply = await rpc.send<AuthResolveReply>(SUBJECTS.management.authResolve, { keyHash });
      expect(reply.principal, keyHash).toBeNull();
    }
  });

  it('lists the keys of the default workspace, hiding disabled ones unless asked', async () => {
    const active = await rpc.send<ApiKeyView[]>(SUBJECTS.management.keysList, { principal, includeDisabled: false, offset: 0 });
    expect(active.map((key) => key.name).sort()).toEqual(['admin', 'app', 'expired']);
    const all = await rpc.send<ApiKeyView[]>(SUBJECTS.management.keysList, { principal, includeDisabled: true, offset: 0 });
    expect(all.map((key) => key.name)).toContain('old');
    const skipped = await rpc.send<ApiKeyView[]>(SUBJECTS.management.keysList, { principal, includeDisabled: true, offset: 2 });
    expect(skipped).toHaveLength(all.length - 2);
    expect(all.some((key) => key.hash === strangerKey.key.hash)).toBe(false);
  });

  it('never returns the secret, only the hash and a masked label', async () => {
    const view = await rpc.send<ApiKeyView>(SUBJECTS.management.keysGet, { principal, hash: standardKey.key.hash });
    expect(JSON.stringify(view)).not.toContain(standardKey.secret);
    expect(view.label).toMatch(/^sk-gw-v1-.{3}\.\.\..{4}$/);
    expect(view.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a workspace the caller does not belong to', async () => {
    const request = rpc.send(SUBJECTS.management.keysList, {
      principal,
      includeDisabled: false,
      offset: 0,
      workspaceId: stranger.workspaceId,
    });
    await expect(request).rejects.toMatchObject({ status: 400 });
  });

  it('answers 404 for a key in another workspace, as for an unknown one', async () => {
    for (const hash of [strangerKey.key.hash, 'f'.repeat(64)]) {
      const error = await rpc.send(SUBJECTS.management.keysGet, { principal, hash }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(404);
    }
  });

  it('refuses the key endpoints to a non-management key', async () => {
    const reply = await rpc.send<AuthResolveReply>(SUBJECTS.management.authResolve, { keyHash: standardKey.key.hash });
    const request = rpc.send(SUBJECTS.management.keysList, { principal: reply.principal, includeDisabled: false, offset: 0 });
    await expect(request).rejects.toMatchObject({ status: 401, metadata: { reason: 'management_key_required' } });
  });

  it('rejects a message whose principal is malformed', async () => {
    const request = rpc.send(SUBJECTS.management.keysList, {
      principal: { ...principal, keyKind: 'root' },
      includeDisabled: false,
      offset: 0,
    });
    await expect(request).rejects.toMatchObject({ status: 400 });
  });
});
