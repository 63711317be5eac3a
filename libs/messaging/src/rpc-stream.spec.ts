import { describe, expect, it } from 'vitest';
import { RpcStream, type BufferBudget } from './rpc-stream.js';

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

  it('bounds what it holds in bytes, and tells the producer at once', async () => {
    let slow = 0;
    const stream = new RpcStream<string>(
      'subject',
      { firstPacketTimeoutMs: 10_000, idleTimeoutMs: 10_000, maxBufferedBytes: 10, onSlowConsumer: () => slow++ },
      () => undefined,
    );
    stream.push('12345');
    stream.push('é234'); // 5 bytes in UTF-8: 10 in all, still within the bound
    expect(stream.heldBytes).toBe(10);
    expect(await stream.next()).toEqual({ value: '12345', done: false });
    expect(stream.heldBytes).toBe(5);
    stream.push('123456'); // 11 bytes: one too many
    expect(slow).toBe(1);
    expect(stream.heldBytes).toBe(0);
    await expect(stream.next()).rejects.toMatchObject({ status: 503, metadata: { reason: 'slow_consumer' } });
  });

  it('takes bytes from a budget shared by streams and gives them back when read or dropped', async () => {
    let used = 0;
    const budget: BufferBudget = {
      tryTake: (bytes) => (used + bytes <= 8 ? ((used += bytes), true) : false),
      give: (bytes) => void (used -= bytes),
    };
    const make = () => new RpcStream<string>('subject', { firstPacketTimeoutMs: 10_000, idleTimeoutMs: 10_000, budget }, () => undefined);
    const [a, b] = [make(), make()];
    a.push('1234');
    b.push('1234');
    expect(used).toBe(8);
    await a.next();
    expect(used).toBe(4);
    a.push('12345'); // 9 bytes with b's 4: over the shared budget, so a fails
    await expect(a.next()).rejects.toMatchObject({ metadata: { reason: 'slow_consumer' } });
    expect(used).toBe(4);
    await b.return();
    expect(used).toBe(0);
  });
});
