import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { PrivateNatsCluster, PrivateNatsServer } from '@gw/testing';
import { JETSTREAM } from '@gw/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDeadLetterStream } from './dead-letters.js';
import { ensureStream, SINGLE_NODE } from './jetstream-placement.js';
import { JetStreamPublisher } from './jetstream-publisher.js';
import { LargeBodies, RPC_BODIES_BUCKET } from './large-bodies.js';
import { ResilientNatsConnection } from './nats-connection.js';

const R3 = { replicas: 3, tags: [] };

/**
 * Issue 36, item 1: every stream and store is created with the configured replicas, an existing
 * one with fewer is raised on start, and with R3 one node down (even the stream's leader,
 * killed) leaves publishes acknowledged. Before: R1 everywhere, "stream is offline" with its node.
 */
describe('JetStream placement on a 3-node cluster', () => {
  let cluster: PrivateNatsCluster;
  let nats: ResilientNatsConnection;
  let manager: JetStreamManager;

  beforeAll(async () => {
    cluster = await PrivateNatsCluster.start({ size: 3 });
    nats = await ResilientNatsConnection.open({ servers: cluster.url, name: 'placement-spec', jetstream: R3 });
    manager = await jetstreamManager(nats.connection);
  }, 90_000);

  afterAll(async () => {
    await nats?.close();
    await cluster?.stop();
  });

  it('creates a stream with the configured replicas', async () => {
    await ensureDeadLetterStream(nats.connection, R3);
    const info = await manager.streams.info(JETSTREAM.deadLetterStream);
    expect(info.config.num_replicas).toBe(3);
  });

  it('raises an existing stream made with one replica to three, and leaves it at three after', async () => {
    await manager.streams.add({ name: 'PLACED', subjects: ['placed.>'], num_replicas: 1 });
    await ensureStream(manager, { name: 'PLACED', subjects: ['placed.>'] }, R3);
    expect((await manager.streams.info('PLACED')).config.num_replicas).toBe(3);
    await ensureStream(manager, { name: 'PLACED', subjects: ['placed.>'] }, SINGLE_NODE);
    expect((await manager.streams.info('PLACED')).config.num_replicas).toBe(3);
  });

  it('raises the object store of large bodies too', async () => {
    const bodies = new LargeBodies(nats.connection, { inlineMaxBytes: 1, placement: R3 });
    const { name } = await bodies.put(new TextEncoder().encode('x'.repeat(10)));
    expect((await manager.streams.info(`OBJ_${RPC_BODIES_BUCKET}`)).config.num_replicas).toBe(3);
    expect(new TextDecoder().decode(await bodies.get(name))).toBe('x'.repeat(10));
  });

  it('keeps acknowledging publishes with the stream leader killed', async () => {
    await ensureStream(manager, { name: 'LEADERLESS', subjects: ['leaderless.>'] }, R3);
    const publisher = new JetStreamPublisher(nats.connection, 20_000);
    await publisher.publish('leaderless.a', '{}', 'before');
    const leader = (await manager.streams.info('LEADERLESS')).cluster?.leader;
    expect(leader).toBeTruthy();
    await cluster.node(leader!).stop('SIGKILL');
    try {
      // No stream listens until a new leader is elected, seconds later: the publish waits it out.
      const ack = await publisher.publish('leaderless.a', '{}', 'after');
      expect(ack.seq).toBe(2);
      const info = await manager.streams.info('LEADERLESS');
      expect(info.cluster?.leader).not.toBe(leader);
      expect(info.state.messages).toBe(2);
    } finally {
      publisher.close();
      await cluster.node(leader!).start();
      await cluster.node(leader!).waitCurrent();
    }
  }, 60_000);
});

describe('JetStream placement on a single server', () => {
  let server: PrivateNatsServer;
  let nats: ResilientNatsConnection;

  beforeAll(async () => {
    server = await PrivateNatsServer.start();
    nats = await ResilientNatsConnection.open({ servers: server.url, name: 'placement-spec' });
  });

  afterAll(async () => {
    await nats?.close();
    await server?.stop();
  });

  it('refuses three replicas it cannot hold, naming them, instead of keeping one silently', async () => {
    const manager = await jetstreamManager(nats.connection);
    await expect(ensureStream(manager, { name: 'SOLO', subjects: ['solo.>'] }, R3)).rejects.toThrow(/replica/i);
  });
});
