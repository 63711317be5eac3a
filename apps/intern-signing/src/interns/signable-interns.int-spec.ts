import type { INestMicroservice } from '@nestjs/common';
import type { Subscription } from '@nats-io/transport-node';
import { SUBJECTS, type InternView, type Principal } from '@gw/contracts';
import type { GatewayError } from '@gw/errors';
import type { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { principalFixture } from '@gw/testing';
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInternSigning } from '../spec-helpers.js';

/**
 * The sign path caches interns per replica (SignableInterns): two replicas of intern-signing in
 * one queue group sign for an intern, so both have it cached; after one deletes it, neither may
 * sign for it again (the deleting replica forgets it, the other hears events.interns.deleted).
 */
describe('signing after an intern is deleted, with two replicas', () => {
  const replicas: INestMicroservice[] = [];
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let managementStandIn: Subscription;
  const owner: Principal = principalFixture(createHash('sha256').update('cache-owner').digest('hex'), {
    workspaceId: randomUUID(),
    userId: randomUUID(),
    hasPersonalIdentity: true,
    identitySubject: 'alice',
  });
  const bodySha256 = createHash('sha256').update('{}').digest('hex');
  const sign = (internId: string) =>
    rpc.send(SUBJECTS.internSigning.daemonSign, { principal: owner, internId, bodySha256 }).then(
      () => 200,
      (error: GatewayError) => error.status,
    );

  beforeAll(async () => {
    const first = await startInternSigning('cache-spec-1');
    const second = await startInternSigning('cache-spec-2');
    replicas.push(first.service, second.service);
    await second.nats.close();
    ({ nats, rpc } = first);
    managementStandIn = nats.connection.subscribe(SUBJECTS.management.keysDeleteForIntern, {
      callback: (_error, message) => {
        const packet = message.json<{ id: string }>();
        message.respond(JSON.stringify({ id: packet.id, response: { deleted: 0 }, isDisposed: true }));
      },
    });
  });

  afterAll(async () => {
    managementStandIn?.unsubscribe();
    await nats?.close();
    for (const replica of replicas) await replica.close();
  });

  it('refuses every signature once the intern is deleted, on both replicas', async () => {
    const intern = await rpc.send<InternView>(SUBJECTS.internSigning.create, { principal: owner, name: `cached-${randomUUID()}` });
    // Enough signatures that the queue group gives both replicas some (and so a cached intern).
    const before = await Promise.all(Array.from({ length: 20 }, () => sign(intern.id)));
    expect(before.every((status) => status === 200)).toBe(true);
    await rpc.send(SUBJECTS.internSigning.delete, { principal: owner, internId: intern.id });
    await new Promise((resolve) => setTimeout(resolve, 100)); // the deletion event's flight
    const after = await Promise.all(Array.from({ length: 20 }, () => sign(intern.id)));
    expect(after).toEqual(Array.from({ length: 20 }, () => 404));
  });
});
