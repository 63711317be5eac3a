import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { rpcMessage } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { currentRequestId, runWithRequestId } from '@gw/telemetry';
import { PrivateNatsServer } from '@gw/testing';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { LoggerModule } from 'nestjs-pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ResilientNatsConnection } from './nats-connection.js';
import { RpcClient } from './rpc-client.js';
import { markCommitted } from './rpc-liveness.js';
import { ServedSubject } from './served-subject.decorator.js';
import { startServiceReplica, type ServiceReplica } from './service-bootstrap.js';

/*
 * ADR 0079: a `@ServedSubject` method answers its caller exactly as the same method behind
 * `@MessagePattern` does (Nest's dispatch, the payload validation pipe, AllRpcExceptionsFilter):
 * every case below is asked of both, `nest.*` and `served.*`, and the answers compared. And ADR
 * 0078: asked with `sendJson`, a served subject answers the answer's JSON text, which is what
 * `JSON.stringify` makes of the answer `send` returns.
 */

const MB = 1024 * 1024;
const HEARTBEAT_MS = 200;
const LIVENESS_MS = 1_000;

class WorkRequest {
  @IsString()
  text!: string;

  @IsOptional()
  @IsInt()
  wait?: number;

  @IsOptional()
  @IsInt()
  replyBytes?: number;

  @IsOptional()
  @IsString()
  fail?: 'typed' | 'crash';
}

const ServedWork = rpcMessage<WorkRequest, unknown>('served.work', WorkRequest);
const ServedTrusted = rpcMessage<WorkRequest, unknown>('served.trusted', WorkRequest);

async function work(request: WorkRequest): Promise<unknown> {
  if (request.wait) {
    markCommitted();
    await new Promise((resolve) => setTimeout(resolve, request.wait));
  }
  if (request.fail === 'typed') throw new GatewayError(402, 'No credits left', { metadata: { reason: 'credits', retryable: false } });
  if (request.fail === 'crash') throw new Error('internal detail that must not leave the service');
  return {
    text: request.text,
    keys: Object.entries(request)
      .filter(([, value]) => value !== undefined)
      .map(([key]) => key)
      .sort(),
    requestId: currentRequestId() ?? null,
    unicode: 'é \u2028 😀',
    big: request.replyBytes ? 'r'.repeat(request.replyBytes) : undefined,
    nothing: null,
    n: 1.5e-7,
  };
}

@Controller()
class WorkController {
  @MessagePattern('nest.work')
  nest(@Payload() request: WorkRequest): Promise<unknown> {
    return work(request);
  }

  @ServedSubject(ServedWork)
  served(request: WorkRequest): Promise<unknown> {
    return work(request);
  }

  @ServedSubject(ServedTrusted, { trusted: true })
  trusted(request: WorkRequest): Promise<unknown> {
    return work(request);
  }
}

@Module({ imports: [LoggerModule.forRoot(loggerParams('served-spec', 'silent'))], controllers: [WorkController] })
class WorkModule {}

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

/** A failure as its caller sees it, the error id (random per error) replaced. */
function shape(error: GatewayError): unknown {
  const metadata = error.metadata ? { ...error.metadata } : undefined;
  if (metadata?.error_id) metadata.error_id = '<id>';
  return { status: error.status, message: error.message, errorType: error.errorType, metadata };
}

describe('@ServedSubject', () => {
  let nats: PrivateNatsServer;
  let connection: ResilientNatsConnection;
  let client: RpcClient;
  const replicas: ServiceReplica[] = [];

  const start = async (shutdownGraceMs = 5_000): Promise<ServiceReplica> => {
    const replica = await startServiceReplica(WorkModule, {
      queue: 'served',
      natsUrl: nats.url,
      heartbeatMs: HEARTBEAT_MS,
      shutdownGraceMs,
    });
    replicas.push(replica);
    return replica;
  };

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    connection = await ResilientNatsConnection.open({ servers: nats.url, name: 'served-client' });
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

  it('answers as Nest does, with the caller’s request id, unknown fields stripped when validated', async () => {
    await start();
    const request = { text: 'hi', extra: 'dropped by validation' };
    const nest = await runWithRequestId('req-1', () => client.send('nest.work', request));
    const served = await runWithRequestId('req-1', () => client.send('served.work', request));
    expect(served).toEqual(nest);
    expect(served).toMatchObject({ keys: ['text'], requestId: 'req-1' });
    // Trusted: the payload as it came.
    await expect(client.send('served.trusted', request)).resolves.toMatchObject({ keys: ['extra', 'text'] });
  });

  it('answers sendJson with the answer’s JSON text; a Nest-served subject with the same text', async () => {
    await start();
    const request = { text: 'json' };
    const answer = await client.send('served.work', request);
    const served = await client.sendJson('served.work', request);
    const nest = await client.sendJson('nest.work', request);
    expect(typeof served).toBe('string');
    expect(served).toBe(JSON.stringify(answer));
    expect(nest).toBe(served);
  });

  it.each([
    ['a typed error', { text: 'x', fail: 'typed' }],
    ['an unexpected error (a bare 500 with an error id)', { text: 'x', fail: 'crash' }],
    ['a payload its contract refuses', { text: 42 }],
  ])('fails with %s exactly as Nest does, send and sendJson alike', async (_case, request) => {
    await start();
    const nest = shape(await failureOf(client.send('nest.work', request)));
    expect(shape(await failureOf(client.send('served.work', request)))).toEqual(nest);
    expect(shape(await failureOf(client.sendJson('served.work', request)))).toEqual(nest);
  });

  it('reads a request body and sends a reply over max_payload through the object store', async () => {
    await start();
    const request = { text: 't'.repeat(2 * MB), replyBytes: 2 * MB };
    const nest = await client.send('nest.work', request);
    const served = await client.sendJson('served.work', request);
    expect(served).toBe(JSON.stringify(nest));
    expect(served.length).toBeGreaterThan(2 * MB);
    // Nest's packet too (no Gw-Reply header to carry with the reference).
    expect(await client.send('served.work', request)).toEqual(nest);
  });

  it('on stop, sends a reply still on its way through the object store before it closes', async () => {
    const replica = await start();
    const request = { text: 'slow', wait: 300, replyBytes: 2 * MB };
    const nest = client.sendJson('nest.work', request);
    const served = client.sendJson('served.work', request);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await replica.stop();
    expect((await served).length).toBeGreaterThan(2 * MB);
    expect(await served).toBe(await nest);
  });

  it('keeps a caller waiting past its liveness timeout with heartbeats (committed)', async () => {
    await start();
    await expect(client.send('served.work', { text: 'slow', wait: LIVENESS_MS * 2 }, 10_000)).resolves.toMatchObject({ text: 'slow' });
  });

  it('answers a request still running when the shutdown grace period ends with the retryable 503', async () => {
    const replica = await start(300);
    const nest = failureOf(client.send('nest.work', { text: 'slow', wait: 3_000 }));
    const served = failureOf(client.sendJson('served.work', { text: 'slow', wait: 3_000 }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await replica.stop();
    expect(shape(await served)).toEqual(shape(await nest));
    expect((await served).metadata).toMatchObject({ reason: 'replica_shutdown', retryable: true });
  });
});
