import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { EventInvalidatedCache } from './event-invalidated-cache.js';

/** A lookup the test answers by hand, numbered in the order they started. */
function ownerByHand() {
  const pending: Array<{ started: number; answer: (value: string) => void; fail: (error: unknown) => void }> = [];
  let started = 0;
  const cache = new EventInvalidatedCache<string, string>({
    max: 10,
    ttlMs: 60_000,
    invalidatedBy: 'unused',
    invalidate: () => undefined,
    lookup: () =>
      new Promise((resolve, reject) => {
        started += 1;
        const mine = started;
        pending.push({ started: mine, answer: (value) => resolve({ value: `${value}@${mine}` }), fail: reject });
      }),
  });
  const settle = async () => new Promise((resolve) => setImmediate(resolve));
  return { cache, pending, settle };
}

describe('EventInvalidatedCache', () => {
  it('answers a caller whose lookup an event overtook with a lookup started after it, and keeps only that', async () => {
    const { cache, pending, settle } = ownerByHand();
    const first = cache.fetch('key');
    await settle();
    cache.delete('key');
    pending[0].answer('old');
    await settle();
    expect(pending).toHaveLength(2);
    pending[1].answer('new');
    expect(await first).toBe('new@2');
    expect(await cache.fetch('key')).toBe('new@2');
  });

  it('never rejects when events keep landing during every lookup (the second lookup is not overtaken)', async () => {
    const { cache, pending, settle } = ownerByHand();
    const answer = cache.fetch('key');
    await settle();
    cache.delete('key');
    pending[0].answer('a');
    await settle();
    cache.delete('key'); // lands during the lookup started after the first event
    pending[1].answer('b');
    await expect(answer).resolves.toBe('b@2');
    await settle();
    expect(cache.entries.has('key')).toBe(false); // overtaken again: not kept
  });

  it('passes the owner’s refusal on to every waiting caller and keeps nothing', async () => {
    const { cache, pending, settle } = ownerByHand();
    const answers = [cache.fetch('key'), cache.fetch('key')];
    await settle();
    expect(pending).toHaveLength(1);
    pending[0].fail(new GatewayError(404, 'no such preset'));
    for (const answer of answers) await expect(answer).rejects.toMatchObject({ status: 404 });
    expect(cache.entries.has('key')).toBe(false);
  });

  it('uses the expired answer when asked to and the owner fails, never one an event dropped', async () => {
    let fail = false;
    let version = 0;
    const cache = new EventInvalidatedCache<string, string>({
      max: 10,
      ttlMs: 1,
      staleOnFailure: true,
      invalidatedBy: 'unused',
      invalidate: () => undefined,
      lookup: async () => {
        if (fail) throw new Error('owner down');
        return { value: `v${++version}` };
      },
    });
    expect(await cache.fetch('key')).toBe('v1');
    await new Promise((resolve) => setTimeout(resolve, 5));
    fail = true;
    expect(await cache.fetch('key')).toBe('v1');
    cache.delete('key');
    await expect(cache.fetch('key')).rejects.toThrow('owner down');
  });
});
