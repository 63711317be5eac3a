import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { PrivateNatsServer } from '@gw/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeOncePerTurn } from './writes-per-turn.js';

/** Counts the socket writes of `connection` (nats.js's transport `send`, one `socket.write` each). */
function countWrites(connection: NatsConnection): { count: () => number } {
  const transport = (connection as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol.transport;
  const send = transport.send.bind(transport);
  let writes = 0;
  transport.send = (frame) => {
    writes += 1;
    send(frame);
  };
  return { count: () => writes };
}

/** Resolves with the payloads received on `subject` once `expected` arrived. */
function receive(connection: NatsConnection, subject: string, expected: number): Promise<string[]> {
  const seen: string[] = [];
  return new Promise((resolve) => {
    connection.subscribe(subject, {
      callback: (_error, message: Msg) => {
        seen.push(message.string());
        if (seen.length === expected) resolve(seen);
      },
    });
  });
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('writeOncePerTurn', () => {
  let nats: PrivateNatsServer;
  let reader: NatsConnection;

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    reader = await connect({ servers: nats.url, name: 'reader' });
  });

  afterAll(async () => {
    await reader.close();
    await nats.stop();
  });

  it('sends the publishes of one turn, made in separate microtask waves, in one write and in order', async () => {
    const plain = await connect({ servers: nats.url, name: 'plain' });
    const batched = writeOncePerTurn(await connect({ servers: nats.url, name: 'batched' }));
    await reader.flush();
    const arrivedPlain = receive(reader, 'turn.plain', 3);
    const arrivedBatched = receive(reader, 'turn.batched', 3);
    await reader.flush();
    const plainWrites = countWrites(plain);
    const batchedWrites = countWrites(batched);

    // Three waves of one turn, as three awaited steps of a handler would make.
    await Promise.all(
      ['a', 'b', 'c'].map(async (payload, index) => {
        for (let wave = 0; wave < index; wave += 1) await Promise.resolve();
        plain.publish('turn.plain', payload);
        batched.publish('turn.batched', payload);
      }),
    );
    await turn();

    expect(plainWrites.count()).toBe(3); // nats.js alone: a write per microtask wave
    expect(batchedWrites.count()).toBe(1);
    expect(await arrivedPlain).toEqual(['a', 'b', 'c']);
    expect(await arrivedBatched).toEqual(['a', 'b', 'c']);
    await plain.close();
    await batched.close();
  });

  it('writes at once past nats.js’s pending limit instead of holding the turn’s bytes', async () => {
    const batched = writeOncePerTurn(await connect({ servers: nats.url, name: 'bulk' }));
    const arrived = receive(reader, 'turn.bulk', 3);
    await reader.flush();
    const writes = countWrites(batched);
    const big = 'x'.repeat(40 * 1024); // over the 32 KiB pendingLimit

    batched.publish('turn.bulk', big);
    await Promise.resolve();
    expect(writes.count()).toBe(1); // written in nats.js's own microtask, not held to the turn's end
    batched.publish('turn.bulk', 'after');
    await Promise.resolve();
    batched.publish('turn.bulk', 'last');
    expect(writes.count()).toBe(1); // small ones wait for the turn
    await turn();
    expect(writes.count()).toBe(2);
    expect((await arrived).map((payload) => payload.length)).toEqual([big.length, 5, 4]);
    await batched.close();
  });

  it('writes what is pending before close() shuts the socket', async () => {
    const batched = writeOncePerTurn(await connect({ servers: nats.url, name: 'closing' }));
    const arrived = receive(reader, 'turn.close', 1);
    await reader.flush();
    batched.publish('turn.close', 'last words');
    await batched.close();
    expect(await arrived).toEqual(['last words']);
  });

  it('keeps request-reply, drain and flush working', async () => {
    const service = writeOncePerTurn(await connect({ servers: nats.url, name: 'service' }));
    const caller = writeOncePerTurn(await connect({ servers: nats.url, name: 'caller' }));
    service.subscribe('turn.echo', {
      callback: (_error, message) => {
        message.respond(`echo ${message.string()}`);
      },
    });
    await service.flush();
    const answers = await Promise.all(['1', '2', '3'].map((n) => caller.request('turn.echo', n, { timeout: 2_000 })));
    expect(answers.map((answer) => answer.string())).toEqual(['echo 1', 'echo 2', 'echo 3']);
    const arrived = receive(reader, 'turn.drain', 1);
    await reader.flush();
    caller.publish('turn.drain', 'drained');
    await caller.drain();
    expect(await arrived).toEqual(['drained']);
    await service.close();
  });

  it('patches a connection once', async () => {
    const connection = await connect({ servers: nats.url, name: 'twice' });
    expect(writeOncePerTurn(writeOncePerTurn(connection))).toBe(connection);
    const arrived = receive(reader, 'turn.twice', 1);
    await reader.flush();
    connection.publish('turn.twice', 'once');
    expect(await arrived).toEqual(['once']);
    await connection.close();
  });
});
