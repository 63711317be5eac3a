import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { GatewayError } from '@gw/errors';
import { Objm } from '@nats-io/obj';
import { LoggerModule } from 'nestjs-pino';
import { concat, map, Observable, of, throwError, timer } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RPC_BODIES_BUCKET } from './large-bodies.js';
import { useStreamFrames } from './rpc-liveness.js';
import type { RpcStream } from './rpc-stream.js';
import { startRpcHarness, type RpcHarness } from './spec-helpers.js';

const MB = 1024 * 1024;
const sse = (packet: string) => `data: ${packet}\n\n`;

/** Emits `packets`, or writes them framed as SSE when the caller accepts frames (as inference's stream handlers do). */
function framed(packets: Observable<string>): Observable<string> {
  const sink = useStreamFrames();
  if (!sink) return packets;
  return new Observable<string>((subscriber) =>
    packets.subscribe({
      next: (packet) => sink.write(sse(packet)),
      error: (error) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
}

/** As `framed`, ending the frames itself (as inference's stream handlers do), so the last frames and the end share a message. */
function framedEnding(packets: Observable<string>): Observable<string> {
  const sink = useStreamFrames()!;
  return new Observable<string>((subscriber) =>
    packets.subscribe({
      next: (packet) => sink.write(sse(packet)),
      error: (error) => subscriber.error(error),
      complete: () => {
        sink.end();
        subscriber.complete();
      },
    }),
  );
}

@Controller()
class FramesProbeController {
  /** Five packets in one turn, then two more a few ms apart. */
  @MessagePattern('probe.frames')
  frames(): Observable<string> {
    return framed(concat(of('{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'), timer(5).pipe(map(() => '{"n":5}')), of('{"n":6}')));
  }

  @MessagePattern('probe.frames-fail-mid')
  failMid(): Observable<string> {
    return framed(
      concat(
        of('{"n":0}', '{"n":1}'),
        throwError(() => new GatewayError(502, 'Provider cut the stream', { errorType: 'provider_unavailable' })),
      ),
    );
  }

  @MessagePattern('probe.frames-ending')
  ending(): Observable<string> {
    return framedEnding(concat(of('{"n":0}'), timer(5).pipe(map(() => '{"n":1}'))));
  }

  @MessagePattern('probe.frames-refuse')
  refuse(): Observable<string> {
    return framed(throwError(() => new GatewayError(402, 'No credits left', { errorType: 'payment_required' })));
  }

  @MessagePattern('probe.frames-big')
  big(): Observable<string> {
    // The large frame is not the first message (which carries the Gw-Stream mark), and a small one follows it.
    return framed(concat(of('first'), timer(5).pipe(map(() => 'x'.repeat(2 * MB))), of('last')));
  }

  /** A handler that never opted in: Nest packets whatever the caller accepts. */
  @MessagePattern('probe.packets')
  packets(): Observable<{ n: number }> {
    return of({ n: 1 }, { n: 2 });
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

/** ADR 0067: stream packets as raw frames with their metadata in headers, and both sides still reading the older format. */
describe('stream frames between RpcClient and PlainSubjectNatsServer on a real nats-server', () => {
  let harness: RpcHarness;
  const options = { firstPacketTimeoutMs: 5_000, idleTimeoutMs: 5_000 };

  beforeAll(async () => {
    harness = await startRpcHarness(FramesProbeModule, { queue: 'probe', clientName: 'probe-frames-client', timeoutMs: 5_000 });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('sends the client bytes untouched, the frames of one turn in one message, then the end', async () => {
    const { packets, error } = await read(harness.client.stream('probe.frames', {}, { ...options, frames: true }));
    expect(error).toBeUndefined();
    for (const packet of packets) expect(packet).toBeInstanceOf(Uint8Array);
    expect(text(packets)).toBe([0, 1, 2, 3, 4, 5, 6].map((n) => sse(`{"n":${n}}`)).join(''));
    // The five frames written in one turn share the first message; the two after the timer the next.
    expect(decoder.decode(packets[0] as Uint8Array)).toBe([0, 1, 2, 3, 4].map((n) => sse(`{"n":${n}}`)).join(''));
    expect(packets).toHaveLength(2);
  });

  it('sends the last frames and the end in one message when the handler ends its frames itself', async () => {
    // Every reply message on the bus (heartbeats aside), seen by a second subscription to the inboxes.
    const replies: string[] = [];
    const spy = harness.connection.connection.subscribe('_INBOX.>', {
      callback: (_error, message) => {
        if (!message.headers?.get('Gw-Rpc')) replies.push(message.headers?.get('Gw-Stream') || 'bare');
      },
    });
    const { packets, error } = await read(harness.client.stream('probe.frames-ending', {}, { ...options, frames: true }));
    await harness.connection.connection.flush();
    spy.unsubscribe();
    expect(error).toBeUndefined();
    expect(packets.map((packet) => decoder.decode(packet as Uint8Array))).toEqual([sse('{"n":0}'), sse('{"n":1}')]);
    // The end message carried the last frame: two messages in all, nothing after it from Nest's own end.
    expect(replies).toEqual(['frames', 'end']);
  });

  it('gives a caller that does not ask for frames (an older gateway) the packets as before', async () => {
    const { packets, error } = await read(harness.client.stream('probe.frames', {}, options));
    expect(error).toBeUndefined();
    expect(packets).toEqual([0, 1, 2, 3, 4, 5, 6].map((n) => `{"n":${n}}`));
  });

  it('reads the packets of a handler that did not opt in (an older service) when it asked for frames', async () => {
    await expect(read(harness.client.stream('probe.packets', {}, { ...options, frames: true }))).resolves.toEqual({
      packets: [{ n: 1 }, { n: 2 }],
    });
  });

  it('fails after the frames sent before the failure, with the service error', async () => {
    const { packets, error } = await read(harness.client.stream('probe.frames-fail-mid', {}, { ...options, frames: true }));
    expect(text(packets)).toBe(sse('{"n":0}') + sse('{"n":1}'));
    expect(error).toMatchObject({ status: 502, errorType: 'provider_unavailable' });
  });

  it('fails before any frame with the service error, which a caller of frames still tells apart from a frame', async () => {
    const { packets, error } = await read(harness.client.stream('probe.frames-refuse', {}, { ...options, frames: true }));
    expect(packets).toEqual([]);
    expect(error).toMatchObject({ status: 402, errorType: 'payment_required' });
  });

  it('sends a frame over max_payload through the object store, in order, and deletes it', async () => {
    const { packets, error } = await read(harness.client.stream('probe.frames-big', {}, { ...options, frames: true }));
    expect(error).toBeUndefined();
    expect(text(packets)).toBe(sse('first') + sse('x'.repeat(2 * MB)) + sse('last'));
    const bucket = await new Objm(harness.connection.connection).open(RPC_BODIES_BUCKET);
    await expect.poll(async () => (await bucket.list()).length, { timeout: 5_000 }).toBe(0);
  });
});
