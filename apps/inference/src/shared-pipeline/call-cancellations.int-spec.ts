import { EVENTS } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { PrivateNatsServer } from '@gw/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallCancellations } from './call-cancellations.js';

/** Two inference replicas on a real nats-server: a cancellation reaches both, the one running the stream aborts it. */
describe('CallCancellations across replicas', () => {
  let nats: PrivateNatsServer;
  let gateway: ResilientNatsConnection;
  let replicaA: CallCancellations;
  let replicaB: CallCancellations;
  let connectionA: ResilientNatsConnection;
  let connectionB: ResilientNatsConnection;

  const cancel = async (streamId: string): Promise<void> => {
    gateway.connection.publish(EVENTS.callCancelled, JSON.stringify({ streamId }));
    await gateway.connection.flush();
    await new Promise((resolve) => setTimeout(resolve, 100));
  };

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    connectionA = await ResilientNatsConnection.open({ servers: nats.url, name: 'replica-a' });
    connectionB = await ResilientNatsConnection.open({ servers: nats.url, name: 'replica-b' });
    replicaA = new CallCancellations(connectionA);
    replicaB = new CallCancellations(connectionB);
    replicaA.onModuleInit();
    replicaB.onModuleInit();
    await connectionA.connection.flush();
    await connectionB.connection.flush();
    gateway = await ResilientNatsConnection.open({ servers: nats.url, name: 'gateway-probe' });
  });

  afterAll(async () => {
    await gateway?.close();
    replicaA?.onModuleDestroy();
    replicaB?.onModuleDestroy();
    await connectionA?.close();
    await connectionB?.close();
    await nats?.stop();
  });

  it('aborts the stream on the replica running it, whichever replica that is', async () => {
    const onA = replicaA.register('stream-on-a-0001');
    const onB = replicaB.register('stream-on-b-0001');
    await cancel('stream-on-b-0001');
    expect(onB.signal.aborted).toBe(true);
    expect(onA.signal.aborted).toBe(false);
    expect(replicaB.runningCount).toBe(0);
    replicaA.release('stream-on-a-0001', onA);
    expect(replicaA.runningCount).toBe(0);
  });

  it('aborts at once a stream whose cancellation arrived before it started', async () => {
    await cancel('early-cancel-0001');
    expect(replicaA.register('early-cancel-0001').signal.aborted).toBe(true);
    // Remembered once: a new stream that reuses the id later is not affected.
    const again = replicaA.register('early-cancel-0001');
    expect(again.signal.aborted).toBe(false);
    replicaA.release('early-cancel-0001', again);
  });

  it('ignores a malformed event', async () => {
    const running = replicaA.register('well-formed-0001');
    gateway.connection.publish(EVENTS.callCancelled, 'not json');
    gateway.connection.publish(EVENTS.callCancelled, JSON.stringify({ streamId: '../../etc' }));
    await cancel('someone-else-0001');
    expect(running.signal.aborted).toBe(false);
    replicaA.release('well-formed-0001', running);
  });
});
