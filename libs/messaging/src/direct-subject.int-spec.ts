import { Module } from '@nestjs/common';
import { loggerParams } from '@gw/config';
import { GatewayError } from '@gw/errors';
import { currentRequestId, runWithRequestId } from '@gw/telemetry';
import { PrivateNatsServer } from '@gw/testing';
import { LoggerModule } from 'nestjs-pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveDirect } from './direct-subject.js';
import { ResilientNatsConnection } from './nats-connection.js';
import { RpcClient } from './rpc-client.js';
import { startServiceReplica, type ServiceReplica } from './service-bootstrap.js';

/*
 * A subject served by a plain subscription (ADR 0070) looks to its caller exactly like one
 * served by Nest: the reply, the error shape, heartbeats while it works, the request id, the
 * queue group, and a graceful stop that finishes what it took and takes nothing more.
 */

const HEARTBEAT_MS = 200;
const LIVENESS_MS = 1_000;

@Module({ imports: [LoggerModule.forRoot(loggerParams('direct-spec', 'silent'))] })
class EmptyModule {}

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('serveDirect', () => {
  let nats: PrivateNatsServer;
  let connection: ResilientNatsConnection;
  let client: RpcClient;
  const replicas: ServiceReplica[] = [];

  const start = async (name: string): Promise<ServiceReplica> => {
    const replica = await startServiceReplica(EmptyModule, {
      queue: 'direct',
      natsUrl: nats.url,
      heartbeatMs: HEARTBEAT_MS,
      shutdownGraceMs: 5_000,
    });
    replicas.push(replica);
    serveDirect(replica.server, 'direct.work', 'direct', async (data) => {
      const { wait, fail, crash } = data as { wait?: number; fail?: boolean; crash?: boolean };
      if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
      if (fail) throw new GatewayError(404, 'No such thing', { metadata: { reason: 'not_found', retryable: false } });
      if (crash) throw new Error('internal detail that must not leave the service');
      return { replica: name, requestId: currentRequestId() ?? null, data };
    });
    await replica.server.flush();
    return replica;
  };

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    connection = await ResilientNatsConnection.open({ servers: nats.url, name: 'direct-client' });
    client = new RpcClient(connection, 10_000, { livenessTimeoutMs: LIVENESS_MS });
  });

  afterEach(async () => {
    for (const replica of replicas.splice(0)) await replica.stop().catch(() => undefined);
  });

  afterAll(async () => {
    client?.close();
    await connection?.close();
    await nats?.stop();
  });

  it('answers with the handler’s result and the caller’s request id', async () => {
    await start('a');
    const answer = await runWithRequestId('req-direct-1', () => client.send('direct.work', { hello: 'world' }));
    expect(answer).toEqual({ replica: 'a', requestId: 'req-direct-1', data: { hello: 'world' } });
  });

  it('sends errors in the typed shape; an unexpected one as a bare 500 with an error id', async () => {
    await start('a');
    const notFound = await failureOf(client.send('direct.work', { fail: true }));
    expect(notFound).toMatchObject({ status: 404, message: 'No such thing', metadata: { reason: 'not_found', retryable: false } });
    const crashed = await failureOf(client.send('direct.work', { crash: true }));
    expect(crashed.status).toBe(500);
    expect(crashed.message).toBe('Internal server error');
    expect(crashed.metadata?.error_id).toEqual(expect.any(String));
  });

  it('keeps a caller waiting past its liveness timeout with heartbeats', async () => {
    await start('a');
    await expect(client.send('direct.work', { wait: LIVENESS_MS * 2 })).resolves.toMatchObject({ replica: 'a' });
  });

  it('shares the subject between the replicas of the queue group', async () => {
    await start('a');
    await start('b');
    const answers = await Promise.all(Array.from({ length: 40 }, () => client.send<{ replica: string }>('direct.work', {})));
    expect(new Set(answers.map((answer) => answer.replica))).toEqual(new Set(['a', 'b']));
  });

  it('on stop, finishes the request it took and takes no more: the other replica gets them', async () => {
    const a = await start('a');
    const slow = client.send<{ replica: string }>('direct.work', { wait: 500 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await start('b');
    const stopping = a.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await Promise.all(Array.from({ length: 10 }, () => client.send<{ replica: string }>('direct.work', {})));
    expect(after.every((answer) => answer.replica === 'b')).toBe(true);
    await expect(slow).resolves.toMatchObject({ replica: 'a' });
    await stopping;
  });
});
