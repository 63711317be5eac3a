import { EVENTS, type KeysUsedEvent } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GatewayEnv } from '../env.js';
import { KeyUsageTracker } from './key-usage.tracker.js';

/** last_used_at batching against a real nats-server: what the gateway publishes, and when. */
describe('KeyUsageTracker', () => {
  let nats: ResilientNatsConnection;
  const batches: KeysUsedEvent[] = [];

  beforeAll(async () => {
    nats = await ResilientNatsConnection.open({ servers: inject('natsUrl'), name: 'key-usage-spec' });
    nats.connection.subscribe(EVENTS.keysUsed, {
      callback: (_error, message) => {
        const { pattern, data } = message.json<{ pattern: string; data: KeysUsedEvent }>();
        if (pattern === EVENTS.keysUsed) batches.push(data);
      },
    });
    await nats.connection.flush();
  });

  afterAll(() => nats?.close());

  const tracker = (flushMs: number) => new KeyUsageTracker(nats, Object.assign(new GatewayEnv(), { KEYS_USED_FLUSH_MS: flushMs }));

  it('publishes each key once per interval with its latest time, and nothing when idle', async () => {
    const usage = tracker(150);
    usage.onModuleInit();
    const [a, b] = ['a'.repeat(64), 'b'.repeat(64)];
    const start = batches.length;
    usage.touch(a, Date.parse('2026-05-01T10:00:00.000Z'));
    usage.touch(b, Date.parse('2026-05-01T10:00:01.000Z'));
    usage.touch(a, Date.parse('2026-05-01T10:00:02.000Z'));
    await expect.poll(() => batches.length).toBe(start + 1);
    const entries = [...batches[start]!.entries].sort((x, y) => x.keyHash.localeCompare(y.keyHash));
    expect(entries).toEqual([
      { keyHash: a, lastUsedAt: '2026-05-01T10:00:02.000Z' },
      { keyHash: b, lastUsedAt: '2026-05-01T10:00:01.000Z' },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 400)); // two idle intervals
    expect(batches.length).toBe(start + 1);
    usage.onModuleDestroy();
  });

  it('flushes what is left when the gateway shuts down', async () => {
    const usage = tracker(300_000);
    usage.onModuleInit();
    const start = batches.length;
    usage.touch('c'.repeat(64));
    usage.onModuleDestroy();
    await expect.poll(() => batches.length).toBe(start + 1);
    expect(batches[start]!.entries.map((entry) => entry.keyHash)).toEqual(['c'.repeat(64)]);
  });

  it('splits a large batch into events that fit in a NATS message', async () => {
    const usage = tracker(300_000);
    const start = batches.length;
    for (let index = 0; index < 10_001; index += 1) usage.touch(index.toString(16).padStart(64, '0'));
    expect(usage.flush()).toBe(10_001);
    await expect.poll(() => batches.length).toBe(start + 3);
    expect(batches.slice(start).map((batch) => batch.entries.length)).toEqual([5_000, 5_000, 1]);
  });
});
