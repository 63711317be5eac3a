import type { INestMicroservice } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  EVENTS,
  SUBJECTS,
  type ApiKeyView,
  type AuthResolveReply,
  type KeysChangedEvent,
  type KeysCreateReply,
  type Principal,
} from '@gw/contracts';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startManagement } from '../spec-helpers.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey, type OwnerRef } from './key-issuer.js';
import { hashKeySecret } from './key-secret.js';

/** Key create, update and delete over NATS, as the gateway calls them, on a real PostgreSQL. */
describe('management key writes over NATS', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let owner: OwnerRef;
  let stranger: OwnerRef;
  let principal: Principal;
  let strangerPrincipal: Principal;
  let subscription: Subscription;
  const changed: string[] = [];

  const resolve = async (keyHash: string) => (await rpc.send<AuthResolveReply>(SUBJECTS.management.authResolve, { keyHash })).principal!;
  const create = (body: Record<string, unknown>, as = principal) =>
    rpc.send<KeysCreateReply>(SUBJECTS.management.keysCreate, { principal: as, includeByokInLimit: false, ...body });
  const soon = (iso: number) => new Date(Date.now() + iso).toISOString();

  beforeAll(async () => {
    ({ service, nats, rpc } = await startManagement('key-writes-spec'));
    subscription = nats.connection.subscribe(EVENTS.keysChanged, {
      callback: (_error, message) => void changed.push(...message.json<{ data: KeysChangedEvent }>().data.keyHashes),
    });
    owner = await createWorkspaceWithOwner(prisma, { workspaceName: 'Writes', email: `writes-${randomUUID()}@example.com`, userName: 'W' });
    stranger = await createWorkspaceWithOwner(prisma, { workspaceName: 'Else', email: `else-${randomUUID()}@example.com`, userName: 'E' });
    principal = await resolve((await issueKey(prisma, owner, { kind: 'management', name: 'admin' })).key.hash);
    strangerPrincipal = await resolve((await issueKey(prisma, stranger, { kind: 'management', name: 'theirs' })).key.hash);
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await nats?.close();
    await service?.close();
    await prisma.$disconnect();
  });

  it('creates a standard key, returns its secret once with the key object, and stores only the hash', async () => {
    const expiresAt = soon(86_400_000);
    const reply = await create({ name: 'ci', limit: '2.5', limitReset: 'weekly', includeByokInLimit: true, expiresAt });
    expect(reply.key).toMatch(/^sk-gw-v1-[0-9a-f]{64}$/);
    expect(reply.data).toMatchObject({
      hash: hashKeySecret(reply.key),
      name: 'ci',
      workspace_id: owner.workspaceId,
      creator_user_id: owner.userId,
      limit: 2.5,
      limit_remaining: 2.5,
      limit_reset: 'weekly',
      include_byok_in_limit: true,
      expires_at: expiresAt,
      disabled: false,
      usage: 0,
    });
    const stored = await prisma.apiKey.findUniqueOrThrow({ where: { hash: reply.data.hash } });
    expect(stored.kind).toBe('standard');
    expect(JSON.stringify(stored)).not.toContain(reply.key);
    expect((await resolve(reply.data.hash)).keyKind).toBe('standard');
  });

  it('creates in another workspace only for a member, and only for a member creator', async () => {
    await expect(create({ name: 'x', workspaceId: stranger.workspaceId })).rejects.toMatchObject({ status: 400 });
    await expect(create({ name: 'x', creatorUserId: stranger.userId })).rejects.toMatchObject({ status: 400 });
  });

  it('refuses an expiry in the past and a non-management caller', async () => {
    await expect(create({ name: 'x', expiresAt: '2020-01-01T00:00:00Z' })).rejects.toMatchObject({ status: 400, message: /future/ });
    const standard = await create({ name: 'std' });
    const standardPrincipal = await resolve(standard.data.hash);
    await expect(create({ name: 'x' }, standardPrincipal)).rejects.toMatchObject({
      status: 401,
      metadata: { reason: 'management_key_required' },
    });
  });

  it('updates only the fields given, clears with null, and tells the gateways', async () => {
    const { data } = await create({ name: 'before', limit: '1', limitReset: 'daily', expiresAt: soon(3_600_000) });
    const updated = await rpc.send<ApiKeyView>(SUBJECTS.management.keysUpdate, {
      principal,
      hash: data.hash,
      name: 'after',
      limit: '3.25',
    });
    expect(updated).toMatchObject({ name: 'after', limit: 3.25, limit_reset: 'daily', expires_at: data.expires_at });
    const cleared = await rpc.send<ApiKeyView>(SUBJECTS.management.keysUpdate, {
      principal,
      hash: data.hash,
      limit: null,
      limitReset: null,
      expiresAt: null,
    });
    expect(cleared).toMatchObject({ name: 'after', limit: null, limit_remaining: null, limit_reset: null, expires_at: null });
    await expect.poll(() => changed).toContain(data.hash);
  });

  it('stores a key’s own rate limits, carries them in its principal, and clears them with null', async () => {
    const { data } = await create({ name: 'limited', rateLimits: { requestsPerMinute: 5, concurrentRequests: null } });
    expect((await resolve(data.hash)).rateLimits).toEqual({ requestsPerMinute: 5, concurrentRequests: null });
    await rpc.send<ApiKeyView>(SUBJECTS.management.keysUpdate, { principal, hash: data.hash, rateLimits: { concurrentRequests: 2 } });
    expect((await resolve(data.hash)).rateLimits).toEqual({ requestsPerMinute: null, concurrentRequests: 2 });
    await rpc.send<ApiKeyView>(SUBJECTS.management.keysUpdate, { principal, hash: data.hash, name: 'renamed' });
    expect((await resolve(data.hash)).rateLimits).toEqual({ requestsPerMinute: null, concurrentRequests: 2 });
    await rpc.send<ApiKeyView>(SUBJECTS.management.keysUpdate, { principal, hash: data.hash, rateLimits: null });
    expect((await resolve(data.hash)).rateLimits).toBeNull();
    await expect(
      rpc.send(SUBJECTS.management.keysUpdate, { principal, hash: data.hash, rateLimits: { requestsPerMinute: 0 } }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('disables a key so auth refuses it', async () => {
    const { data } = await create({ name: 'to-disable' });
    const disabled = await rpc.send<ApiKeyView>(SUBJECTS.management.keysUpdate, { principal, hash: data.hash, disabled: true });
    expect(disabled.disabled).toBe(true);
    expect((await rpc.send<AuthResolveReply>(SUBJECTS.management.authResolve, { keyHash: data.hash })).principal).toBeNull();
  });

  it('deletes a key: { deleted: true }, then 404, and the gateways are told', async () => {
    const { data } = await create({ name: 'to-delete' });
    await expect(rpc.send(SUBJECTS.management.keysDelete, { principal, hash: data.hash })).resolves.toEqual({ deleted: true });
    await expect(rpc.send(SUBJECTS.management.keysGet, { principal, hash: data.hash })).rejects.toMatchObject({ status: 404 });
    await expect(rpc.send(SUBJECTS.management.keysDelete, { principal, hash: data.hash })).rejects.toMatchObject({ status: 404 });
    await expect.poll(() => changed).toContain(data.hash);
  });

  it('answers 404 to update or delete a key of a workspace the caller is not in', async () => {
    const { data } = await create({ name: 'mine' });
    await expect(
      rpc.send(SUBJECTS.management.keysUpdate, { principal: strangerPrincipal, hash: data.hash, name: 'stolen' }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(rpc.send(SUBJECTS.management.keysDelete, { principal: strangerPrincipal, hash: data.hash })).rejects.toMatchObject({
      status: 404,
    });
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { hash: data.hash } })).name).toBe('mine');
  });

  it('rejects an update whose limit is not a decimal string', async () => {
    const { data } = await create({ name: 'strict' });
    await expect(rpc.send(SUBJECTS.management.keysUpdate, { principal, hash: data.hash, limit: '1e3' })).rejects.toMatchObject({
      status: 400,
    });
  });
});
