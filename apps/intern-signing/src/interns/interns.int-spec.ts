import type { INestMicroservice } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import {
  SUBJECTS,
  type DaemonJwksView,
  type DaemonSignatureHeadersView,
  type InternListView,
  type InternView,
  type Principal,
} from '@gw/contracts';
import { invokeMessageV1 } from '@gw/daemon-verifier';
import type { GatewayError } from '@gw/errors';
import type { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { principalFixture } from '@gw/testing';
import { createHash, randomUUID } from 'node:crypto';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInternSigning, TEST_SIGNING_SEED } from '../spec-helpers.js';

const hash = (text: string) => createHash('sha256').update(text).digest('hex');

/** Interns and signing over NATS as the gateway calls them, on a real PostgreSQL; management stood in for by a subscription. */
describe('intern-signing over NATS', () => {
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let managementStandIn: Subscription;
  const revoked: Array<{ workspaceId: string; internId: string }> = [];
  const workspaceId = randomUUID();
  const owner: Principal = principalFixture(hash('owner'), {
    workspaceId,
    userId: randomUUID(),
    hasPersonalIdentity: true,
    identitySubject: 'alice',
  });
  const stranger: Principal = principalFixture(hash('stranger'), {
    workspaceId: randomUUID(),
    hasPersonalIdentity: true,
    identitySubject: 'eve',
  });

  const create = (body: Record<string, unknown>, principal = owner) =>
    rpc.send<InternView>(SUBJECTS.internSigning.create, { principal, ...body });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: GatewayError) => ({ status: error.status, reason: error.metadata?.reason }),
    );

  beforeAll(async () => {
    ({ service, nats, rpc } = await startInternSigning('interns-spec'));
    // Management's side of a delete: revoke the intern's keys (Nest's reply packet).
    managementStandIn = nats.connection.subscribe(SUBJECTS.management.keysDeleteForIntern, {
      callback: (_error, message) => {
        const packet = message.json<{ id: string; data: { workspaceId: string; internId: string } }>();
        revoked.push(packet.data);
        message.respond(JSON.stringify({ id: packet.id, response: { deleted: 1 }, isDisposed: true }));
      },
    });
  });

  afterAll(async () => {
    managementStandIn?.unsubscribe();
    await nats?.close();
    await service?.close();
  });

  it('creates, reads, updates and deletes an intern in the SDK shape', async () => {
    const intern = await create({ name: 'Scout', description: 'Looks around', model: 'openai/gpt-4o', hostname: 'scout.example.com' });
    expect(intern).toEqual({
      attached_vault_id: null,
      created_at: expect.any(String),
      description: 'Looks around',
      hostname: 'scout.example.com',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      instructions: null,
      last_failure_message: null,
      model: 'openai/gpt-4o',
      name: 'Scout',
      progress: null,
      status: 'stopped',
      updated_at: expect.any(String),
      vault_id: null,
      workspace_id: workspaceId,
    });
    expect(await rpc.send(SUBJECTS.internSigning.get, { principal: owner, internId: intern.id })).toEqual(intern);
    const updated = await rpc.send<InternView>(SUBJECTS.internSigning.update, {
      principal: owner,
      internId: intern.id,
      description: null,
      instructions: 'Be brief.',
    });
    expect(updated).toMatchObject({ description: null, instructions: 'Be brief.', model: 'openai/gpt-4o', name: 'Scout' });
    expect(await failure(create({ name: 'Scout' }))).toEqual({ status: 409, reason: 'conflict' });

    expect(await rpc.send(SUBJECTS.internSigning.delete, { principal: owner, internId: intern.id })).toEqual({ deleting: true });
    expect(revoked).toContainEqual({ workspaceId, internId: intern.id });
    expect(await failure(rpc.send(SUBJECTS.internSigning.get, { principal: owner, internId: intern.id }))).toEqual({
      status: 404,
      reason: 'not_found',
    });
  });

  it('lists newest first with a cursor, filters by status, and refuses other workspaces and intern keys', async () => {
    const made: InternView[] = [];
    for (const name of ['a', 'b', 'c']) made.push(await create({ name: `list-${name}` }));
    const first = await rpc.send<InternListView>(SUBJECTS.internSigning.list, { principal: owner, limit: 2 });
    expect(first.data.map((intern) => intern.name)).toEqual(['list-c', 'list-b']);
    expect(first.has_more).toBe(true);
    const second = await rpc.send<InternListView>(SUBJECTS.internSigning.list, {
      principal: owner,
      limit: 2,
      startingAfter: first.next_cursor,
    });
    expect(second.data.map((intern) => intern.name)).toEqual(['list-a']);
    expect(second).not.toHaveProperty('next_cursor');
    expect(
      (await rpc.send<InternListView>(SUBJECTS.internSigning.list, { principal: owner, limit: 10, statuses: ['running'] })).data,
    ).toEqual([]);
    expect((await rpc.send<InternListView>(SUBJECTS.internSigning.list, { principal: stranger, limit: 10 })).data).toEqual([]);
    expect(
      await failure(rpc.send(SUBJECTS.internSigning.list, { principal: owner, limit: 10, workspaceId: stranger.workspaceId })),
    ).toEqual({ status: 404, reason: 'not_found' });
    expect(await failure(rpc.send(SUBJECTS.internSigning.list, { principal: owner, limit: 10, startingAfter: 'nonsense' }))).toMatchObject({
      status: 400,
    });

    const internKey: Principal = { ...owner, keyKind: 'intern', internId: made[0]!.id, keyHash: hash('intern-key') };
    expect(await failure(rpc.send(SUBJECTS.internSigning.list, { principal: internKey, limit: 10 }))).toEqual({
      status: 404,
      reason: 'not_found',
    });
    expect(await rpc.send<InternView>(SUBJECTS.internSigning.get, { principal: internKey, internId: made[0]!.id })).toMatchObject({
      name: 'list-a',
    });
    expect(await failure(rpc.send(SUBJECTS.internSigning.get, { principal: internKey, internId: made[1]!.id }))).toEqual({
      status: 404,
      reason: 'not_found',
    });
    expect(await failure(rpc.send(SUBJECTS.internSigning.get, { principal: stranger, internId: made[1]!.id }))).toEqual({
      status: 404,
      reason: 'not_found',
    });
    expect(await rpc.send(SUBJECTS.internSigning.exists, { workspaceId, internId: made[1]!.id })).toEqual({ exists: true });
    expect(await rpc.send(SUBJECTS.internSigning.exists, { workspaceId: stranger.workspaceId, internId: made[1]!.id })).toEqual({
      exists: false,
    });
  });

  it('signs for a visible intern as the linked subject, verifiable with the published key', async () => {
    const intern = await create({ name: 'signer' });
    const bodySha256 = hash('{"run":1}');
    const headers = await rpc.send<DaemonSignatureHeadersView>(SUBJECTS.internSigning.daemonSign, {
      principal: owner,
      internId: intern.id,
      bodySha256,
    });
    expect(headers['x-ori-invoke-user']).toBe('alice');
    expect(headers['x-ori-invoke-key-id']).toBe('test-2');
    const jwks = await rpc.send<DaemonJwksView>(SUBJECTS.internSigning.daemonJwks, {});
    expect(jwks.keys.map((key) => key.kid)).toEqual(['test-2', 'test-1']);
    const publicKey = new Uint8Array(Buffer.from(jwks.keys[0]!.x, 'base64url'));
    expect(publicKey).toEqual(nacl.sign.keyPair.fromSeed(TEST_SIGNING_SEED).publicKey);
    const message = invokeMessageV1({ internId: intern.id, timestamp: headers['x-ori-invoke-timestamp'], user: 'alice', bodySha256 });
    expect(nacl.sign.detached.verify(message, Buffer.from(headers['x-ori-invoke-signature'], 'base64'), publicKey)).toBe(true);

    const noIdentity = { ...owner, hasPersonalIdentity: false, identitySubject: null };
    expect(await failure(rpc.send(SUBJECTS.internSigning.daemonSign, { principal: noIdentity, internId: intern.id, bodySha256 }))).toEqual({
      status: 403,
      reason: 'personal_identity_required',
    });
    expect(await failure(rpc.send(SUBJECTS.internSigning.daemonSign, { principal: stranger, internId: intern.id, bodySha256 }))).toEqual({
      status: 404,
      reason: 'not_found',
    });
    expect(await failure(rpc.send(SUBJECTS.internSigning.daemonSign, { principal: owner, internId: randomUUID(), bodySha256 }))).toEqual({
      status: 404,
      reason: 'not_found',
    });
  });
});
