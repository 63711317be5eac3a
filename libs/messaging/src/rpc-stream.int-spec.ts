import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { GatewayError } from '@gw/errors';
import { PrivateNatsServer } from '@gw/testing';
import { IsInt, Max, Min } from 'class-validator';
import { LoggerModule } from 'nestjs-pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResilientNatsConnection } from './nats-connection.js';
import { RpcClient } from './rpc-client.js';
import type { RpcStream } from './rpc-stream.js';
import { ServedStream } from './served-stream.js';
import { bootstrapService } from './service-bootstrap.js';

class CountRequest {
  @IsInt()
  @Min(0)
  @Max(1000)
  count!: number;
}

const tick = (ms = 1) => new Promise((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<void>(() => undefined);

@Controller()
class StreamingProbeController {
  @MessagePattern('probe.count')
  count(@Payload() request: CountRequest): ServedStream {
    return new ServedStream(async (out) => {
      for (let n = 0; n < request.count; n++) {
        await tick();
        out.write(`${n}\n`);
      }
    });
  }

  /** Writes in one turn: the frames and the end leave in one message. */
  @MessagePattern('probe.burst')
  burst(): ServedStream {
    return new ServedStream(async (out) => {
      for (const n of [1, 2, 3]) out.write(`${n}\n`);
    });
  }

  @MessagePattern('probe.refuse-first')
  refuseFirst(): ServedStream {
    return new ServedStream(() => Promise.reject(new GatewayError(402, 'No credits left', { errorType: 'payment_required' })));
  }

  @MessagePattern('probe.fail-mid')
  failMid(): ServedStream {
    return new ServedStream(async (out) => {
      out.write('1\n');
      out.write('2\n');
      await tick(5);
      out.write('3\n');
      throw new GatewayError(502, 'Provider cut the stream', { errorType: 'provider_unavailable' });
    });
  }

  @MessagePattern('probe.stall')
  stall(): ServedStream {
    return new ServedStream(async (out) => {
      out.write('1\n');
      await never();
    });
  }

  @MessagePattern('probe.never-starts')
  neverStarts(): ServedStream {
    return new ServedStream(never);
  }
}

@Module({ imports: [LoggerModule.forRoot(loggerParams('probe', 'silent'))], controllers: [StreamingProbeController] })
class StreamingProbeModule {}

/** The numbers a stream's frames carry, one a line, and the error that ended it. */
async function read(stream: RpcStream<Uint8Array>): Promise<{ values: number[]; error?: GatewayError }> {
  let text = '';
  const values = () => text.split('\n').filter(Boolean).map(Number);
  try {
    for await (const value of stream) text += Buffer.from(value).toString();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return { values: values(), error: error as GatewayError };
  }
  return { values: values() };
}

describe('RpcClient.stream against a served stream on a real nats-server', () => {
  let nats: PrivateNatsServer;
  let service: INestMicroservice;
  let connection: ResilientNatsConnection;
  let client: RpcClient;
  const timeouts = { firstPacketTimeoutMs: 1_000, idleTimeoutMs: 300 };

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    service = await bootstrapService(StreamingProbeModule, { queue: 'probe', natsUrl: nats.url });
    connection = await ResilientNatsConnection.open({ servers: nats.url, name: 'probe-stream-client' });
    client = new RpcClient(connection, 300);
  });

  afterAll(async () => {
    await connection?.close();
    await service?.close();
    await nats?.stop();
  });

  it('yields every emission in order and ends cleanly', async () => {
    const { values, error } = await read(client.stream('probe.count', { count: 50 }, timeouts));
    expect(error).toBeUndefined();
    expect(values).toEqual([...Array(50).keys()]);
  });

  it('keeps the last frames when the end shares their message', async () => {
    await expect(read(client.stream('probe.burst', {}, timeouts))).resolves.toEqual({ values: [1, 2, 3] });
  });

  it('ends an empty stream with no values', async () => {
    await expect(read(client.stream('probe.count', { count: 0 }, timeouts))).resolves.toEqual({ values: [] });
  });

  it('rejects the first read with the service error when the stream fails before any packet', async () => {
    const { values, error } = await read(client.stream('probe.refuse-first', {}, timeouts));
    expect(values).toEqual([]);
    expect(error).toMatchObject({ status: 402, errorType: 'payment_required' });
  });

  it('validates the payload on the receiving side, as for send()', async () => {
    const { error } = await read(client.stream('probe.count', { count: 'many' }, timeouts));
    expect(error?.status).toBe(400);
  });

  it('delivers the packets before a mid-stream failure, then the failure', async () => {
    const stream = client.stream<Uint8Array>('probe.fail-mid', {}, timeouts);
    const { values, error } = await read(stream);
    expect(values).toEqual([1, 2, 3]);
    expect(error).toMatchObject({ status: 502, errorType: 'provider_unavailable', message: 'Provider cut the stream' });
    expect(stream.started).toBe(true);
  });

  it('fails a stream that stalls after it began with a 504 after the idle timeout', async () => {
    const started = Date.now();
    const { values, error } = await read(client.stream('probe.stall', {}, timeouts));
    expect(values).toEqual([1]);
    expect(error).toMatchObject({ status: 504, errorType: 'timeout' });
    // Not before the idle timeout; the 504 after it is the idle timeout's (the stream never ends otherwise).
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    console.log(`stalled stream failed after ${Date.now() - started} ms`);
  });

  it('fails a stream whose first packet never comes after the first-packet timeout', async () => {
    const started = Date.now();
    const { error } = await read(client.stream('probe.never-starts', {}, { firstPacketTimeoutMs: 400, idleTimeoutMs: 100 }));
    expect(error).toMatchObject({ status: 504, errorType: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('answers 503 at once when no service listens on the subject', async () => {
    const started = Date.now();
    const { error } = await read(client.stream('nobody.home', {}, { firstPacketTimeoutMs: 5_000, idleTimeoutMs: 5_000 }));
    expect(error).toMatchObject({ status: 503, metadata: { reason: 'service_unavailable' } });
    expect(error?.message).toMatch(/nobody/);
    // At once: not after the 5 s first-packet timeout (how soon below it is the machine's, logged).
    console.log(`no responders answered after ${Date.now() - started} ms`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('drops later packets once the consumer stops reading', async () => {
    const stream = client.stream<Uint8Array>('probe.count', { count: 100 }, timeouts);
    const seen: number[] = [];
    for await (const value of stream) {
      seen.push(Number(Buffer.from(value).toString().trim()));
      if (seen.length === 3) break;
    }
    expect(seen).toEqual([0, 1, 2]);
    await expect(stream.next()).resolves.toEqual({ value: undefined, done: true });
    // The client still works for the next call.
    await expect(read(client.stream('probe.burst', {}, timeouts))).resolves.toEqual({ values: [1, 2, 3] });
  });

  it('fails fast with 503 while the bus is down', async () => {
    await nats.halt();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { error } = await read(client.stream('probe.burst', {}, timeouts));
    expect(error).toMatchObject({ status: 503 });
    await nats.resume();
  });
});
