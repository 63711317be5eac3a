import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { GatewayError } from '@gw/errors';
import { Objm } from '@nats-io/obj';
import { LoggerModule } from 'nestjs-pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RPC_BODIES_BUCKET } from './large-bodies.js';
import type { RpcStream } from './rpc-stream.js';
import { ServedStream } from './served-stream.js';
import { startRpcHarness, type RpcHarness } from './spec-helpers.js';

const MB = 1024 * 1024;
const sse = (packet: string) => `data: ${packet}\n\n`;

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A stream that writes `before` in one turn, then `after` `ms` later, each as an SSE frame, then fails with `error` if given. */
function framed(before: string[], after: string[] = [], error?: GatewayError): ServedStream {
  return new ServedStream(async (out) => {
    for (const packet of before) out.write(sse(packet));
    if (after.length > 0) {
      await tick(5);
      for (const packet of after) out.write(sse(packet));
    }
    if (error) throw error;
  });
}

@Controller()
class FramesProbeController {
  /** Five packets in one turn, then two more a few ms apart. */
  @MessagePattern('probe.frames')
  frames(): ServedStream {
    return framed(['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'], ['{"n":5}', '{"n":6}']);
  }

  @MessagePattern('probe.frames-fail-mid')
  failMid(): ServedStream {
    return framed(['{"n":0}', '{"n":1}'], [], new GatewayError(502, 'Provider cut the stream', { errorType: 'provider_unavailable' }));
  }

  @MessagePattern('probe.frames-ending')
  ending(): ServedStream {
    return framed(['{"n":0}'], ['{"n":1}']);
  }

  @MessagePattern('probe.frames-refuse')
  refuse(): ServedStream {
    return framed([], [], new GatewayError(402, 'No credits left', { errorType: 'payment_required' }));
  }

  @MessagePattern('probe.frames-big')
  big(): ServedStream {
    // The large frame is not the first message (which carries the Gw-Stream mark), and a small one follows it.
    return new ServedStream(async (out) => {
      out.write(sse('first'));
      await tick(5);
      out.write(sse('x'.repeat(2 * MB)));
      out.write(sse('last'));
    });
  }
}

@Module({ imports: [LoggerModule.forRoot(loggerParams('probe', 'silent'))], controllers: [FramesProbeController] })
class FramesProbeModule {}

const decoder = new TextDecoder();

async function read(stream: RpcStream<unknown>): Promise<{ packets: unknown[]; error?: GatewayError }> {
  const packets: unknown[] = [];
  try {
    for await (const packet of stream) packets.push(packet);
  } catch (error) {
    return { packets, error: error as GatewayError };
  }
  return { packets };
}

const text = (packets: unknown[]) => packets.map((packet) => decoder.decode(packet as Uint8Array)).join('');

/** Stream packets as raw frames with their metadata in headers. */
describe('stream frames between RpcClient and BusServer on a real nats-server', () => {
  let harness: RpcHarness;
  const options = { firstPacketTimeoutMs: 5_000, idleTimeoutMs: 5_000 };

  beforeAll(async () => {
    harness = await startRpcHarness(FramesProbeModule, { queue: 'probe', clientName: 'probe-frames-client', timeoutMs: 5_000 });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('sends the client bytes untouched, the frames of one turn in one message, then the end', async () => {
    const { packets, error } = await read(harness.client.stream('probe.frames', {}, options));
    expect(error).toBeUndefined();
    for (const packet of packets) expect(packet).toBeInstanceOf(Uint8Array);
    expect(text(packets)).toBe([0, 1, 2, 3, 4, 5, 6].map((n) => sse(`{"n":${n}}`)).join(''));
    // The five frames written in one turn share the first message; the two after the timer the next.
    expect(decoder.decode(packets[0] as Uint8Array)).toBe([0, 1, 2, 3, 4].map((n) => sse(`{"n":${n}}`)).join(''));
    expect(packets).toHaveLength(2);
  });

  it('sends the last frames and the end in one message', async () => {
    // Every reply message on the bus (heartbeats aside), seen by a second subscription to the inboxes.
    const replies: string[] = [];
    const spy = harness.connection.connection.subscribe('_INBOX.>', {
      callback: (_error, message) => {
        if (!message.headers?.get('Gw-Rpc')) replies.push(message.headers?.get('Gw-Stream') || 'bare');
      },
    });
    const { packets, error } = await read(harness.client.stream('probe.frames-ending', {}, options));
    await harness.connection.connection.flush();
    spy.unsubscribe();
    expect(error).toBeUndefined();
    expect(packets.map((packet) => decoder.decode(packet as Uint8Array))).toEqual([sse('{"n":0}'), sse('{"n":1}')]);
    // The end message carried the last frame: two messages in all.
    expect(replies).toEqual(['frames', 'end']);
  });

  it('fails after the frames sent before the failure, with the service error', async () => {
    const { packets, error } = await read(harness.client.stream('probe.frames-fail-mid', {}, options));
    expect(text(packets)).toBe(sse('{"n":0}') + sse('{"n":1}'));
    expect(error).toMatchObject({ status: 502, errorType: 'provider_unavailable' });
  });

  it('fails before any frame with the service error, which a caller of frames still tells apart from a frame', async () => {
    const { packets, error } = await read(harness.client.stream('probe.frames-refuse', {}, options));
    expect(packets).toEqual([]);
    expect(error).toMatchObject({ status: 402, errorType: 'payment_required' });
  });

  it('sends a frame over max_payload through the object store, in order, and deletes it', async () => {
    const { packets, error } = await read(harness.client.stream('probe.frames-big', {}, options));
    expect(error).toBeUndefined();
    expect(text(packets)).toBe(sse('first') + sse('x'.repeat(2 * MB)) + sse('last'));
    const bucket = await new Objm(harness.connection.connection).open(RPC_BODIES_BUCKET);
    await expect.poll(async () => (await bucket.list()).length, { timeout: 30_000 }).toBe(0);
  });
});
