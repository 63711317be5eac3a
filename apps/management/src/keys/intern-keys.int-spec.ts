import type { INestMicroservice } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { PrismaPg } from '@prisma/adapter-pg';
import { QUEUE_GROUPS, SUBJECTS, type AuthResolveReply, type KeysCreateReply, type Principal } from '@gw/contracts';
import type { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PrismaClient } from '../generated/prisma/client.js';
import { startManagement } from '../spec-helpers.js';
import { createWorkspaceWithOwner, issueKey } from './key-issuer.js';

/**
 * Intern keys: management asks intern-signing whether the intern exists. The interns are rows
 * in the run's intern-signing database, and a stand-in in intern-signing's queue group answers
 * from those rows, so the answer is the truth whether it or a real replica (another test file)
 * replies.
 */
describe('intern keys', () => {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: testDatabaseUrl(inject('databasePrefix'), 'management') }) });
  const interns = new pg.Pool({ connectionString: testDatabaseUrl(inject('databasePrefix'), 'intern-signing'), max: 2 });
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let standIn: Subscription;
  let principal: Principal;
  let workspaceId: string;

  const resolve = async (keyHash: string) => (await rpc.send<AuthResolveReply>(SUBJECTS.management.authResolve, { keyHash })).principal;
  const addIntern = async (inWorkspace: string) => {
    const id = randomUUID();
    await interns.query(`INSERT INTO interns (id, workspace_id, name, owner_user_id, updated_at) VALUES ($1, $2, $3, $4, now())`, [
      id,
      inWorkspace,
      `i-${id}`,
      randomUUID(),
    ]);
    return id;
  };

  beforeAll(async () => {
    ({ service, nats, rpc } = await startManagement('intern-keys-spec'));
    standIn = nats.connection.subscribe(SUBJECTS.internSigning.exists, {
      queue: QUEUE_GROUPS.internSigning,
      callback: (_error, message) => {
        const packet = message.json<{ id: string; data: { workspaceId: string; internId: string } }>();
        void interns
          .query('SELECT 1 FROM interns WHERE id = $1 AND workspace_id = $2', [packet.data.internId, packet.data.workspaceId])
          .then(({ rowCount }) =>
            message.respond(JSON.stringify({ id: packet.id, response: { exists: rowCount === 1 }, isDisposed: true })),
          );
      },
    });
    const owner = await createWorkspaceWithOwner(prisma, {
      workspaceName: 'Interns',
      email: `interns-${randomUUID()}@example.com`,
      userName: 'I',
    });
    workspaceId = owner.workspaceId;
    principal = (await resolve((await issueKey(prisma, owner, { kind: 'management', name: 'admin' })).key.hash))!;
  });

  afterAll(async () => {
    standIn?.unsubscribe();
    await nats?.close();
    await service?.close();
    await prisma.$disconnect();
    await interns.end();
  });

  it('creates a key of kind intern bound to an intern of the workspace, and deletes it with the intern', async () => {
    const internId = await addIntern(workspaceId);
    const reply = await rpc.send<KeysCreateReply>(SUBJECTS.management.keysCreate, {
      principal,
      name: 'daemon',
      includeByokInLimit: false,
      internId,
    });
    const internPrincipal = await resolve(reply.data.hash);
    expect(internPrincipal).toMatchObject({ keyKind: 'intern', internId, workspaceId });
    expect(await rpc.send(SUBJECTS.management.keysDeleteForIntern, { workspaceId, internId })).toEqual({ deleted: 1 });
    expect(await resolve(reply.data.hash)).toBeNull();
  });

  it('refuses an intern of another workspace or none, without falling back to a default workspace', async () => {
    const elsewhere = await addIntern(randomUUID());
    await expect(
      rpc.send(SUBJECTS.management.keysCreate, { principal, name: 'x', includeByokInLimit: false, internId: elsewhere }),
    ).rejects.toMatchObject({
      status: 400,
      metadata: { reason: 'intern_not_found' },
    });
    await expect(
      rpc.send(SUBJECTS.management.keysCreate, { principal, name: 'x', includeByokInLimit: false, internId: randomUUID() }),
    ).rejects.toMatchObject({ status: 400 });
  });
});
