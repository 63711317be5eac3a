import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EventInvalidatedCache } from './event-invalidated-cache.js';
import { ResilientNatsConnection } from './nats-connection.js';

/** Resolves once `check` holds, polling; the event travels through the real NATS server. */
async function eventually(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('EventInvalidatedCache over NATS', () => {
  let nats: ResilientNatsConnection;
  const subject = `events.spec.${randomUUID()}`;
  const lookups: string[] = [];
  const malformed: unknown[] = [];
  let version = 0;
  const cache = new EventInvalidatedCache<string, string>({
    max: 100,
    ttlMs: 60_000,
    lookup: async (key) => {
      lookups.push(key);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { value: `${key}@${++version}` };
    },
    invalidatedBy: subject,
    invalidate: (message, entries) => {
      for (const key of message.json<{ keys: string[] }>().keys) entries.delete(key);
    },
    onMalformed: (error) => malformed.push(error),
  });

  beforeAll(async () => {
    nats = await ResilientNatsConnection.open({ servers: inject('natsUrl'), name: 'invalidated-cache-spec' });
    cache.listen(nats.connection);
    await nats.connection.flush();
  });

  afterAll(async () => {
    cache.close();
    await nats?.close();
  });

  it('shares one lookup between concurrent misses and answers later calls from memory', async () => {
    const answers = await Promise.all([cache.fetch('a'), cache.fetch('a'), cache.fetch('a')]);
    expect(new Set(answers).size).toBe(1);
    expect(await cache.fetch('a')).toBe(answers[0]);
    expect(lookups.filter((key) => key === 'a')).toHaveLength(1);
  });

  it('drops what an event names on this replica, so the next call asks the owner again', async () => {
    const before = await cache.fetch('b');
    nats.connection.publish(subject, JSON.stringify({ keys: ['b'] }));
    await eventually(() => !cache.entries.has('b'));
    const after = await cache.fetch('b');
    expect(after).not.toBe(before);
    expect(lookups.filter((key) => key === 'b')).toHaveLength(2);
  });

  it('ignores a malformed event and keeps its entries', async () => {
    const kept = await cache.fetch('c');
    nats.connection.publish(subject, 'not json');
    await eventually(() => malformed.length === 1);
    expect(cache.entries.has('c')).toBe(true);
    expect(await cache.fetch('c')).toBe(kept);
  });
});
