import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { Objm } from '@nats-io/obj';
import { LoggerModule } from 'nestjs-pino';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RPC_BODIES_BUCKET } from './large-bodies.js';
import { ResilientNatsConnection } from './nats-connection.js';
import { ServedStream } from './served-stream.js';
import { RpcClient } from './rpc-client.js';
import { startRpcHarness, type RpcHarness } from './spec-helpers.js';

const MB = 1024 * 1024;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const blob = (bytes: number, seed: string) => seed.repeat(Math.ceil(bytes / seed.length)).slice(0, bytes);

@Controller()
class BodyProbeController {
  @MessagePattern('probe.digest')
  digest(@Payload() request: { text: string }): { length: number; sha: string } {
    return { length: request.text.length, sha: sha(request.text) };
  }

  @MessagePattern('probe.big-reply')
  bigReply(@Payload() request: { bytes: number }): { text: string } {
    return { text: blob(request.bytes, 'reply-') };
  }

  /** Small, large, small messages (a turn apart): the caller must read them in this order. */
  @MessagePattern('probe.mixed-stream')
  mixed(@Payload() request: { text: string }): ServedStream {
    return new ServedStream(async (out) => {
      for (const frame of ['first', blob(2 * MB, 'chunk-'), `digest:${sha(request.text)}`, 'last']) {
        out.write(frame);
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
  }
}

@Module({ imports: [LoggerModule.forRoot(loggerParams('probe', 'silent'))], controllers: [BodyProbeController] })
class BodyProbeModule {}

/**
 * Issue 9, item 5: bodies over NATS's max_payload (1 MB here, the server's default)
 * travel through the object store RPC_BODIES, requests and replies, plain calls and streams,
 * and are deleted after use. Before: 503 "Message bus unavailable" for any body over 1 MB.
 */
describe('bodies over max_payload through the object store', () => {
  let connection: ResilientNatsConnection;
  let client: RpcClient;
  let harness: RpcHarness;

  beforeAll(async () => {
    harness = await startRpcHarness(BodyProbeModule, { queue: 'probe', clientName: 'probe-bodies-client', timeoutMs: 10_000 });
    ({ connection, client } = harness);
  });

  afterAll(async () => {
    await harness?.close();
  });

  /** Objects still in the bucket (deleted ones leave no object behind). */
  async function storedObjects(): Promise<number> {
    const store = await new Objm(connection.connection).open(RPC_BODIES_BUCKET);
    return (await store.list()).filter((info) => !info.deleted).length;
  }

  async function eventuallyEmpty(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while ((await storedObjects()) > 0) {
      if (Date.now() > deadline) throw new Error('bodies left in the bucket');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('sends a 3 MB and a 10 MB request, answers them, and leaves nothing in the bucket', async () => {
    expect(connection.connection.info?.max_payload).toBe(MB);
    for (const size of [3 * MB, 10 * MB]) {
      const text = blob(size, 'data:image/png;base64,iVBORw0KGgo');
      await expect(client.send('probe.digest', { text })).resolves.toEqual({ length: size, sha: sha(text) });
    }
    // A small one still goes inline.
    await expect(client.send('probe.digest', { text: 'x' })).resolves.toEqual({ length: 1, sha: sha('x') });
    await eventuallyEmpty();
  });

  it('brings back a reply over max_payload', async () => {
    const reply = await client.send<{ text: string }>('probe.big-reply', { bytes: 5 * MB });
    expect(reply.text).toBe(blob(5 * MB, 'reply-'));
    await eventuallyEmpty();
  });

  it('streams with a large request and a large packet between small ones, in order', async () => {
    const text = blob(2 * MB, 'request-');
    const values: string[] = [];
    for await (const value of client.stream<Uint8Array>(
      'probe.mixed-stream',
      { text },
      { firstPacketTimeoutMs: 10_000, idleTimeoutMs: 10_000 },
    ))
      values.push(Buffer.from(value).toString());
    expect(values.map((value) => (value.length > 100 ? `<${value.length}>` : value))).toEqual([
      'first',
      `<${2 * MB}>`,
      `digest:${sha(text)}`,
      'last',
    ]);
    await eventuallyEmpty();
  });
});
