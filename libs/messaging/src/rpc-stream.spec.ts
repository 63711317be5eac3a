import { describe, expect, it } from 'vitest';
import { RpcStream } from './rpc-stream.js';

const options = { firstPacketTimeoutMs: 10_000, idleTimeoutMs: 10_000, maxBufferedPackets: 3 };

describe('RpcStream buffering', () => {
  it('hands buffered packets over in order, then the end', async () => {
    const stream = new RpcStream<number>('subject', options, () => undefined);
    stream.push(1);
    stream.push(2);
    stream.end();
    expect(await stream.next()).toEqual({ value: 1, done: false });
    expect(await stream.next()).toEqual({ value: 2, done: false });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('fails a stream whose consumer fell more than maxBufferedPackets behind, and releases it', async () => {
    let released = 0;
    const stream = new RpcStream<number>('subject', options, () => released++);
    for (let packet = 1; packet <= 4; packet++) stream.push(packet);
    await expect(stream.next()).rejects.toMatchObject({ status: 503, metadata: { reason: 'slow_consumer' } });
    expect(released).toBe(1);
    stream.push(5); // late packets of a failed stream are dropped
    await expect(stream.next()).rejects.toMatchObject({ status: 503 });
  });
});
