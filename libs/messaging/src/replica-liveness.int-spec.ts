import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';
import { loggerParams } from '@gw/config';
import { GatewayError } from '@gw/errors';
import { PrivateNatsServer } from '@gw/testing';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { LoggerModule } from 'nestjs-pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ResilientNatsConnection } from './nats-connection.js';
import { RpcClient } from './rpc-client.js';
import { markCommitted } from './rpc-liveness.js';
import { ServedStream } from './served-stream.js';
import type { RpcStream } from './rpc-stream.js';
import { startServiceReplica, type ServiceReplica } from './service-bootstrap.js';

/*
 * A replica that dies while it works on a request: the caller hears its heartbeats
 * stop and learns within the liveness timeout, instead of waiting for the call's own timeout;
 * an uncommitted request goes to another replica. A replica "dies" here by losing its NATS
 * connection without a word, which is what the caller and NATS see of a `kill -9` (the
 * end-to-end replica test kills real processes).
 */

const HEARTBEAT_MS = 200;
const LIVENESS_MS = 1_500;
const REPLICA = Symbol('REPLICA');

class WorkRequest {
  @IsString()
  tag!: string;

  /** Call markCommitted() first (the point of no return). */
  @IsOptional()
  @IsBoolean()
  commit?: boolean;

  /** The replica of this name never finishes (until released); the others answer at once. */
  @IsOptional()
  @IsString()
  stallOn?: string;

  /** Stream: emit one chunk before stalling. */
  @IsOptional()
  @IsBoolean()
  chunkFirst?: boolean;
}

const seen: Array<{ replica: string; tag: string }> = [];
const releases: Array<() => void> = [];

function stalled(): Promise<void> {
  return new Promise((resolve) => releases.push(resolve));
}

@Controller()
class WorkController {
  constructor(@Inject(REPLICA) private readonly replica: string) {}

  @MessagePattern('work.do')
  async work(@Payload() request: WorkRequest): Promise<string> {
    seen.push({ replica: this.replica, tag: request.tag });
    if (request.commit) markCommitted();
    if (request.stallOn === this.replica) await stalled();
    return this.replica;
  }

  @MessagePattern('work.slow')
  async slow(@Payload() request: WorkRequest): Promise<string> {
    seen.push({ replica: this.replica, tag: request.tag });
    await new Promise((resolve) => setTimeout(resolve, LIVENESS_MS * 2));
    return this.replica;
  }

  @MessagePattern('work.stream')
  stream(@Payload() request: WorkRequest): ServedStream {
    return new ServedStream(async (out) => {
      seen.push({ replica: this.replica, tag: request.tag });
      if (request.commit) markCommitted();
      if (request.stallOn !== this.replica) {
        out.write(`${this.replica}:1\n`);
        out.write(`${this.replica}:2\n`);
        return;
      }
      if (request.chunkFirst) out.write(`${this.replica}:1\n`);
      await stalled();
    });
  }
}

@Module({})
class WorkModule {
  static named(replica: string): DynamicModule {
    return {
      module: WorkModule,
      imports: [LoggerModule.forRoot(loggerParams(`work-${replica}`, 'silent'))],
      controllers: [WorkController],
      providers: [{ provide: REPLICA, useValue: replica }],
    };
  }
}

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

/** The lines of a stream's frames, and the error that ended it. */
async function read(stream: RpcStream<Uint8Array>): Promise<{ values: string[]; error?: GatewayError }> {
  let text = '';
  const values = () => text.split('\n').filter(Boolean);
  try {
    for await (const value of stream) text += Buffer.from(value).toString();
  } catch (error) {
    return { values: values(), error: error as GatewayError };
  }
  return { values: values() };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a caller and a replica that dies mid-request', () => {
  let nats: PrivateNatsServer;
  let connection: ResilientNatsConnection;
  let client: RpcClient;
  const replicas: ServiceReplica[] = [];

  const start = async (name: string, options: { shutdownGraceMs?: number; healthPort?: number } = {}): Promise<ServiceReplica> => {
    const replica = await startServiceReplica(WorkModule.named(name), {
      queue: 'work',
      natsUrl: nats.url,
      heartbeatMs: HEARTBEAT_MS,
      shutdownGraceMs: options.shutdownGraceMs ?? 500,
      healthPort: options.healthPort,
      healthHost: '127.0.0.1',
    });
    replicas.push(replica);
    return replica;
  };
  /** What NATS and the caller see of kill -9: the connection is gone, nothing more is sent. */
  const kill = async (replica: ServiceReplica): Promise<void> => {
    replica.server.inFlight.stop();
    await replica.server.unwrap<NatsConnection>().close();
  };

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    connection = await ResilientNatsConnection.open({ servers: nats.url, name: 'liveness-client' });
    // The call timeout is far above the liveness timeout: a dead replica must be noticed by the latter.
    client = new RpcClient(connection, 60_000, { livenessTimeoutMs: LIVENESS_MS });
  });

  afterEach(async () => {
    for (const release of releases.splice(0)) release();
    for (const replica of replicas.splice(0)) await replica.stop().catch(() => undefined);
    seen.length = 0;
  });

  afterAll(async () => {
    client?.close();
    await connection?.close();
    await nats?.stop();
  });

  it('keeps a call to a live replica that works longer than the liveness timeout (heartbeats)', async () => {
    await start('a');
    await expect(client.send('work.slow', { tag: 'slow' })).resolves.toBe('a');
  });

  it('sends a request the dead replica had not committed to another replica', async () => {
    const a = await start('a');
    const answer = client.send<string>('work.do', { tag: 't1', stallOn: 'a' }, undefined, { resendUncommitted: 1 });
    await until(() => seen.some((entry) => entry.replica === 'a'), 'replica a to take the request');
    await start('b');
    const killedAt = Date.now();
    await kill(a);
    await expect(answer).resolves.toBe('b');
    // Found by liveness, not the call's 60 s timeout; how soon after it is the machine's (logged).
    console.log(`dead replica noticed after ${Date.now() - killedAt} ms (liveness ${LIVENESS_MS} ms)`);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    expect(seen).toEqual([
      { replica: 'a', tag: 't1' },
      { replica: 'b', tag: 't1' },
    ]);
  });

  it('answers a retryable 503 when the dead replica had committed, and does not send it again', async () => {
    const a = await start('a');
    const answer = client.send<string>('work.do', { tag: 't2', commit: true, stallOn: 'a' }, undefined, { resendUncommitted: 1 });
    await until(() => seen.length === 1, 'replica a to take the request');
    await start('b');
    await new Promise((resolve) => setTimeout(resolve, 100)); // the committed marker is on its way
    const killedAt = Date.now();
    await kill(a);
    const error = await failureOf(answer);
    // Found by liveness, not the call's 60 s timeout; how soon after it is the machine's (logged).
    console.log(`dead replica noticed after ${Date.now() - killedAt} ms (liveness ${LIVENESS_MS} ms)`);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    expect(error.status).toBe(503);
    expect(error.metadata).toMatchObject({ reason: 'replica_lost', retryable: true });
    expect(seen.map((entry) => entry.replica)).toEqual(['a']);
  });

  it('does not send a request again unless the caller allows it', async () => {
    const a = await start('a');
    const answer = client.send<string>('work.do', { tag: 't3', stallOn: 'a' });
    await until(() => seen.length === 1, 'replica a to take the request');
    await start('b');
    await kill(a);
    expect((await failureOf(answer)).metadata).toMatchObject({ reason: 'replica_lost' });
    expect(seen.map((entry) => entry.replica)).toEqual(['a']);
  });

  it('moves a stream that had not started to another replica', async () => {
    const a = await start('a');
    const stream = client.stream<Uint8Array>(
      'work.stream',
      { tag: 's1', stallOn: 'a' },
      { firstPacketTimeoutMs: 60_000, idleTimeoutMs: 60_000, resendUncommitted: 1 },
    );
    await until(() => seen.length === 1, 'replica a to take the stream');
    await start('b');
    await kill(a);
    expect(await read(stream)).toEqual({ values: ['b:1', 'b:2'] });
  });

  it('ends a stream whose replica died mid-way with a retryable 503 after the chunks it had sent', async () => {
    const a = await start('a');
    const stream = client.stream<Uint8Array>(
      'work.stream',
      { tag: 's2', commit: true, stallOn: 'a', chunkFirst: true },
      { firstPacketTimeoutMs: 60_000, idleTimeoutMs: 60_000, resendUncommitted: 1 },
    );
    const first = await stream.next();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe('a:1\n');
    await start('b');
    const killedAt = Date.now();
    await kill(a);
    const rest = await read(stream);
    expect(rest.values).toEqual([]);
    expect(rest.error?.status).toBe(503);
    expect(rest.error?.metadata).toMatchObject({ reason: 'replica_lost', retryable: true });
    // Found by liveness, not the call's 60 s timeout; how soon after it is the machine's (logged).
    console.log(`dead replica noticed after ${Date.now() - killedAt} ms (liveness ${LIVENESS_MS} ms)`);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    expect(seen.map((entry) => entry.replica)).toEqual(['a']);
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a replica stopped gracefully (SIGTERM)', () => {
  let nats: PrivateNatsServer;
  let connection: ResilientNatsConnection;
  let client: RpcClient;
  const replicas: ServiceReplica[] = [];

  const start = async (name: string, options: { shutdownGraceMs: number; healthPort?: number }): Promise<ServiceReplica> => {
    const replica = await startServiceReplica(WorkModule.named(name), {
      queue: 'work',
      natsUrl: nats.url,
      heartbeatMs: HEARTBEAT_MS,
      healthHost: '127.0.0.1',
      ...options,
    });
    replicas.push(replica);
    return replica;
  };

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    connection = await ResilientNatsConnection.open({ servers: nats.url, name: 'graceful-client' });
    client = new RpcClient(connection, 60_000, { livenessTimeoutMs: LIVENESS_MS });
  });

  afterEach(async () => {
    for (const release of releases.splice(0)) release();
    for (const replica of replicas.splice(0)) await replica.stop().catch(() => undefined);
    seen.length = 0;
  });

  afterAll(async () => {
    client?.close();
    await connection?.close();
    await nats?.stop();
  });

  it('turns not-ready first, hands new requests to the other replica, finishes what it had, then closes', async () => {
    const port = await freePort();
    const a = await start('a', { shutdownGraceMs: 20_000, healthPort: port });
    expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    const inFlight = client.send<string>('work.do', { tag: 'kept', stallOn: 'a' });
    await until(() => seen.length === 1, 'replica a to take the request');
    await start('b', { shutdownGraceMs: 20_000 });

    let stopped = false;
    const stopping = a.stop().then(() => (stopped = true));
    expect(a.lifecycle.draining).toBe(true);
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', reason: 'draining' });
    // a's UNSUB and the caller's requests travel on two connections, which nats-server reads
    // independently: a PING on a's connection answered means its UNSUB was read (a full
    // suite's load once let a request in before it).
    await a.server.unwrap<NatsConnection>().flush();

    const during = await Promise.all(Array.from({ length: 20 }, (_, index) => client.send<string>('work.do', { tag: `new-${index}` })));
    expect(new Set(during)).toEqual(new Set(['b']));
    expect(stopped).toBe(false); // still finishing the request it had

    for (const release of releases.splice(0)) release();
    await expect(inFlight).resolves.toBe('a');
    await stopping;
    expect(a.server.isConnected()).toBe(false);
  });

  it('answers what is still in flight when the grace period ends with a retryable 503', async () => {
    const a = await start('a', { shutdownGraceMs: 300 });
    const inFlight = client.send<string>('work.do', { tag: 'cut', stallOn: 'a' });
    await until(() => seen.length === 1, 'replica a to take the request');
    const outcome = failureOf(inFlight);
    const startedAt = Date.now();
    await a.stop();
    const error = await outcome;
    expect(error.status).toBe(503);
    // replica_shutdown is the replica's own notice (liveness would say replica_lost); the delay is logged.
    expect(error.metadata).toMatchObject({ reason: 'replica_shutdown', retryable: true });
    console.log(`shutdown notice after ${Date.now() - startedAt} ms`);
  });
});
