import type { INestMicroservice } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  EVENTS,
  SUBJECTS,
  type AuthResolveReply,
  type ByokCredentialPage,
  type ByokCredentialView,
  type ByokResolveReply,
  type Principal,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { TEST_BYOK_KEKS, testDatabaseUrl } from '@gw/testing';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startManagement } from '../spec-helpers.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey, type IssuedKey, type OwnerRef } from '../keys/key-issuer.js';
import { credentialContext, KeyRing, openSecret } from '@gw/config';
import { rewrapToCurrentKek } from './rewrap.js';

// Every management service the integration run starts shares this KEK: they may answer each
// other's requests (one queue group on one NATS).
const V1 = TEST_BYOK_KEKS;
const V1_VERSION = V1.split(':')[0];
const SECRET = `sk-proj-IntSpecSecret-${randomBytes(12).toString('hex')}-AbCd`;

/** The BYOK handlers of the management service on a real NATS and PostgreSQL. */
describe('management BYOK credentials over NATS', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'management');
  const natsUrl = inject('natsUrl');
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  const events: string[] = [];
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let listener: NatsConnection;
  let rpc: RpcClient;
  let owner: OwnerRef;
  let stranger: OwnerRef;
  let standardKey: IssuedKey;
  let strangerKey: IssuedKey;
  let principal: Principal;
  let strangerPrincipal: Principal;

  const principalOf = async (hash: string) =>
    (await rpc.send<AuthResolveReply>(SUBJECTS.management.authResolve, { keyHash: hash })).principal!;
  const create = (credential: Record<string, unknown>, as: Principal = principal) =>
    rpc.send<ByokCredentialView>(SUBJECTS.management.byokCreate, { principal: as, credential });
  const rejection = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: GatewayError) => error,
    );

  beforeAll(async () => {
    ({ service, nats, rpc } = await startManagement('byok-spec', { byokKeks: V1 }));
    listener = await connect({ servers: natsUrl });
    listener.subscribe(EVENTS.byokChanged, { callback: (_error, message) => void events.push(message.string()) });
    const suffix = crypto.randomUUID();
    owner = await createWorkspaceWithOwner(prisma, { workspaceName: 'Mine', email: `byok-${suffix}@example.com`, userName: 'Owner' });
    stranger = await createWorkspaceWithOwner(prisma, {
      workspaceName: 'Theirs',
      email: `byok-other-${suffix}@example.com`,
      userName: 'Other',
    });
    const managementKey = await issueKey(prisma, owner, { kind: 'management', name: 'admin' });
    standardKey = await issueKey(prisma, owner, { kind: 'standard', name: 'app' });
    strangerKey = await issueKey(prisma, stranger, { kind: 'management', name: 'theirs' });
    principal = await principalOf(managementKey.key.hash);
    strangerPrincipal = await principalOf(strangerKey.key.hash);
  });

  afterAll(async () => {
    await listener?.close();
    await nats?.close();
    await service?.close();
    await prisma.$disconnect();
  });

  it('creates a credential: masked label, defaults, and the secret sealed in the database', async () => {
    const created = await create({ provider: 'openai', key: SECRET, name: 'prod' });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'prod',
      provider: 'openai',
      label: 'sk-...AbCd',
      disabled: false,
      is_byok_only: false,
      is_fallback: false,
      is_required: false,
      sort_order: 0,
      created_at: expect.any(String),
      workspace_id: owner.workspaceId,
      allowed_api_key_hashes: null,
      allowed_models: null,
      allowed_user_ids: null,
      declared_region: null,
      declared_zdr: null,
    });
    const rows = await prisma.$queryRaw<Array<{ row: string; kek_version: string }>>`
      SELECT row_to_json(b)::text AS row, kek_version FROM byok_credentials b WHERE id = ${created.id}::uuid`;
    expect(rows[0]!.kek_version).toBe(V1_VERSION);
    expect(rows[0]!.row).not.toContain(SECRET);
    expect(rows[0]!.row).not.toContain(Buffer.from(SECRET).toString('hex'));
  });

  it('resolves enabled credentials decrypted, by sort_order then age, and leaves disabled ones out', async () => {
    const workspace = await createWorkspaceWithOwner(prisma, {
      workspaceName: 'Order',
      email: `order-${crypto.randomUUID()}@example.com`,
      userName: 'O',
    });
    const admin = await principalOf((await issueKey(prisma, workspace, { kind: 'management', name: 'a' })).key.hash);
    const late = await create({ provider: 'anthropic', key: 'sk-ant-late-0123456789abcdef', sort_order: 5 }, admin);
    const first = await create({ provider: 'openai', key: 'sk-first-0123456789abcdef', sort_order: 1 }, admin);
    const secondOlder = await create({ provider: 'openai', key: 'sk-second-0123456789abcdef', sort_order: 2, is_fallback: true }, admin);
    const secondNewer = await create(
      { provider: 'openai', key: 'sk-third-0123456789abcdef', sort_order: 2, allowed_models: ['sim/gpt-4o-mini'] },
      admin,
    );
    await create({ provider: 'openai', key: 'sk-disabled-0123456789abcdef', disabled: true }, admin);

    const all = await rpc.send<ByokResolveReply>(SUBJECTS.management.byokResolve, { workspaceId: workspace.workspaceId });
    expect(all.credentials.map((credential) => credential.id)).toEqual([first.id, secondOlder.id, secondNewer.id, late.id]);
    expect(all.credentials.map((credential) => credential.apiKey)).toEqual([
      'sk-first-0123456789abcdef',
      'sk-second-0123456789abcdef',
      'sk-third-0123456789abcdef',
      'sk-ant-late-0123456789abcdef',
    ]);
    expect(all.credentials[1]).toMatchObject({
      provider: 'openai',
      isFallback: true,
      isByokOnly: false,
      sortOrder: 2,
      allowedModels: null,
    });
    expect(all.credentials[2]!.allowedModels).toEqual(['sim/gpt-4o-mini']);

    const anthropic = await rpc.send<ByokResolveReply>(SUBJECTS.management.byokResolve, {
      workspaceId: workspace.workspaceId,
      provider: 'anthropic',
    });
    expect(anthropic.credentials.map((credential) => credential.id)).toEqual([late.id]);
    const none = await rpc.send<ByokResolveReply>(SUBJECTS.management.byokResolve, { workspaceId: crypto.randomUUID() });
    expect(none.credentials).toEqual([]);
  });

  it('lists newest first, filters by provider, pages, and counts', async () => {
    const extra = await create({ provider: 'groq', key: 'gsk_0123456789abcdefghijkl', name: 'groq' });
    const page = await rpc.send<ByokCredentialPage>(SUBJECTS.management.byokList, { principal, offset: 0, limit: 100 });
    expect(page.data[0]!.id).toBe(extra.id);
    expect(page.total_count).toBe(page.data.length);
    const created = page.data.map((credential) => Date.parse(credential.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const groq = await rpc.send<ByokCredentialPage>(SUBJECTS.management.byokList, { principal, provider: 'groq', offset: 0, limit: 100 });
    expect(groq.data.map((credential) => credential.id)).toEqual([extra.id]);
    const second = await rpc.send<ByokCredentialPage>(SUBJECTS.management.byokList, { principal, offset: 1, limit: 1 });
    expect(second.data.map((credential) => credential.id)).toEqual([page.data[1]!.id]);
    expect(second.total_count).toBe(page.total_count);
    const theirs = await rpc.send<ByokCredentialPage>(SUBJECTS.management.byokList, {
      principal: strangerPrincipal,
      offset: 0,
      limit: 100,
    });
    expect(theirs.data.some((credential) => credential.workspace_id === owner.workspaceId)).toBe(false);
  });

  it('updates fields, clears lists with null, and re-encrypts a new key under a new label', async () => {
    const created = await create({
      provider: 'openai',
      key: SECRET,
      allowed_api_key_hashes: [standardKey.key.hash],
      allowed_user_ids: [owner.userId],
    });
    expect(created.allowed_api_key_hashes).toEqual([standardKey.key.hash]);
    const before = await prisma.byokCredential.findUniqueOrThrow({ where: { id: created.id } });
    const updated = await rpc.send<ByokCredentialView>(SUBJECTS.management.byokUpdate, {
      principal,
      id: created.id,
      changes: {
        name: 'renamed',
        sort_order: 7,
        is_required: true,
        allowed_api_key_hashes: null,
        declared_zdr: true,
        declared_region: 'eu',
        key: 'sk-rotated-0123456789abcdefWXYZ',
      },
    });
    expect(updated).toMatchObject({
      name: 'renamed',
      sort_order: 7,
      is_required: true,
      allowed_api_key_hashes: null,
      allowed_user_ids: [owner.userId],
      declared_zdr: true,
      declared_region: 'eu',
      label: 'sk-...WXYZ',
    });
    const after = await prisma.byokCredential.findUniqueOrThrow({ where: { id: created.id } });
    expect(Buffer.from(after.wrappedDataKey).equals(Buffer.from(before.wrappedDataKey))).toBe(false);
    const ring = KeyRing.fromEnv(V1);
    expect(openSecret(ring, after, credentialContext(after.id, after.workspaceId))).toBe('sk-rotated-0123456789abcdefWXYZ');
  });

  it('refuses is_fallback with is_byok_only, also when the update combines them with the stored value', async () => {
    expect(await rejection(create({ provider: 'openai', key: SECRET, is_fallback: true, is_byok_only: true }))).toMatchObject({
      status: 400,
    });
    const fallback = await create({ provider: 'openai', key: SECRET, is_fallback: true });
    const error = await rejection(
      rpc.send(SUBJECTS.management.byokUpdate, { principal, id: fallback.id, changes: { is_byok_only: true } }),
    );
    expect(error).toMatchObject({ status: 400, message: expect.stringMatching(/is_byok_only/) });
  });

  it('refuses allow-lists naming keys or users of another workspace', async () => {
    const hashes = await rejection(create({ provider: 'openai', key: SECRET, allowed_api_key_hashes: [strangerKey.key.hash] }));
    expect(hashes).toMatchObject({ status: 400, message: expect.stringMatching(/allowed_api_key_hashes/) });
    const users = await rejection(create({ provider: 'openai', key: SECRET, allowed_user_ids: [stranger.userId] }));
    expect(users).toMatchObject({ status: 400, message: expect.stringMatching(/allowed_user_ids/) });
    const workspace = await rejection(create({ provider: 'openai', key: SECRET, workspace_id: stranger.workspaceId }));
    expect(workspace).toMatchObject({ status: 400 });
  });

  it('answers 404 for an unknown id and for another workspace’s credential, on get, update and delete', async () => {
    const mine = await create({ provider: 'openai', key: SECRET });
    for (const [subject, extra] of [
      [SUBJECTS.management.byokGet, {}],
      [SUBJECTS.management.byokUpdate, { changes: { name: 'x' } }],
      [SUBJECTS.management.byokDelete, {}],
    ] as const) {
      expect(await rejection(rpc.send(subject, { principal: strangerPrincipal, id: mine.id, ...extra }))).toMatchObject({ status: 404 });
      expect(await rejection(rpc.send(subject, { principal, id: crypto.randomUUID(), ...extra }))).toMatchObject({ status: 404 });
    }
    expect((await rpc.send<ByokCredentialView>(SUBJECTS.management.byokGet, { principal, id: mine.id })).name).toBe('openai');
  });

  it('deletes, after which the credential is gone and no longer resolved', async () => {
    const doomed = await create({ provider: 'mistral', key: SECRET });
    expect(await rpc.send(SUBJECTS.management.byokDelete, { principal, id: doomed.id })).toEqual({ deleted: true });
    expect(await rejection(rpc.send(SUBJECTS.management.byokGet, { principal, id: doomed.id }))).toMatchObject({ status: 404 });
    const resolved = await rpc.send<ByokResolveReply>(SUBJECTS.management.byokResolve, {
      workspaceId: owner.workspaceId,
      provider: 'mistral',
    });
    expect(resolved.credentials).toEqual([]);
  });

  it('refuses a standard key with 401 management_key_required', async () => {
    const standard = await principalOf(standardKey.key.hash);
    const error = await rejection(create({ provider: 'openai', key: SECRET }, standard));
    expect(error).toMatchObject({ status: 401, metadata: { reason: 'management_key_required' } });
    const list = await rejection(rpc.send(SUBJECTS.management.byokList, { principal: standard, offset: 0, limit: 10 }));
    expect(list).toMatchObject({ status: 401 });
  });

  it('announces every change on events.byok.changed with the workspace only, never the secret', async () => {
    events.length = 0;
    const created = await create({ provider: 'openai', key: SECRET });
    await rpc.send(SUBJECTS.management.byokUpdate, { principal, id: created.id, changes: { disabled: true } });
    await rpc.send(SUBJECTS.management.byokDelete, { principal, id: created.id });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events.map((event) => JSON.parse(event))).toEqual(
      Array.from({ length: 3 }, () => ({ pattern: EVENTS.byokChanged, data: { workspaceId: owner.workspaceId } })),
    );
    for (const event of events) expect(event).not.toContain(SECRET);
  });

  it('rotation: re-wraps every credential under the new current KEK, after which the old KEK can go', async () => {
    const V2 = `v2:${randomBytes(32).toString('base64')}`;
    const rotated = KeyRing.fromEnv(`${V2},${V1}`);
    const result = await rewrapToCurrentKek(prisma, rotated);
    expect(result.rewrapped).toBeGreaterThan(0);
    // (Other spec files may leave rows under KEKs of their own: only this file's are checked.)
    expect(result.stranded.map((entry) => entry.kekVersion)).not.toContain(V1_VERSION);
    const v2Only = KeyRing.fromEnv(V2);
    const rows = await prisma.byokCredential.findMany({ where: { workspaceId: owner.workspaceId } });
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.every((row) => row.kekVersion === 'v2')).toBe(true);
    for (const row of rows) expect(() => openSecret(v2Only, row, credentialContext(row.id, row.workspaceId))).not.toThrow();
    // Running it again finds nothing to do.
    expect((await rewrapToCurrentKek(prisma, rotated)).rewrapped).toBe(0);
    // The running services (still v1 only) now fails closed instead of answering without them.
    const error = await rejection(rpc.send(SUBJECTS.management.byokResolve, { workspaceId: owner.workspaceId }));
    expect(error).toMatchObject({ status: 500 });
  });
});
