import type { UsageRecordedEvent } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { UsageOutbox } from './usage-outbox.js';

const event = (generationId: string) => ({ generationId }) as UsageRecordedEvent;

describe('UsageOutbox', () => {
  it('publishes in the background and retries a failed publish until it is acknowledged', async () => {
    const attempts: string[] = [];
    let failuresLeft = 2;
    const outbox = new UsageOutbox(
      async (batch) => {
        attempts.push(...batch.map((item) => item.generationId));
        if (batch.some((item) => item.generationId === 'gen-b') && failuresLeft-- > 0) throw new Error('no stream');
      },
      { maxPending: 10, retryDelayMs: 5 },
    );
    expect(outbox.enqueue(event('gen-a'))).toBe(true);
    expect(outbox.enqueue(event('gen-b'))).toBe(true);
    expect(await outbox.flush(2_000)).toBe(true);
    expect(attempts.filter((id) => id === 'gen-b')).toHaveLength(3);
    expect(outbox.stats()).toEqual({ pending: 0, published: 2, dropped: 0, retries: 2 });
  });

  it('sends a lone event at once, alone, and events that queued behind busy publishes together', async () => {
    const batches: string[][] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const outbox = new UsageOutbox(
      (batch) => {
        batches.push(batch.map((item) => item.generationId));
        return batches.length === 1 ? blocked : Promise.resolve();
      },
      { maxPending: 100, concurrency: 1, maxBatch: 3 },
    );
    outbox.enqueue(event('gen-1'));
    for (const id of ['gen-2', 'gen-3', 'gen-4', 'gen-5']) outbox.enqueue(event(id));
    expect(batches).toEqual([['gen-1']]);
    release();
    expect(await outbox.flush(1_000)).toBe(true);
    expect(batches).toEqual([['gen-1'], ['gen-2', 'gen-3', 'gen-4'], ['gen-5']]);
    expect(outbox.stats()).toMatchObject({ pending: 0, published: 5 });
  });

  it('with a linger, sends the events of the window as one message (and flush does not wait for the window)', async () => {
    const batches: string[][] = [];
    const outbox = new UsageOutbox(
      async (batch) => {
        batches.push(batch.map((item) => item.generationId));
      },
      { maxPending: 100, lingerMs: 60_000 },
    );
    for (const id of ['gen-a', 'gen-b', 'gen-c']) outbox.enqueue(event(id));
    expect(batches).toEqual([]);
    expect(await outbox.flush(1_000)).toBe(true);
    expect(batches).toEqual([['gen-a', 'gen-b', 'gen-c']]);
    outbox.close();
  });

  it('drops and counts events beyond its bound instead of growing', async () => {
    const dropped: string[] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const outbox = new UsageOutbox(() => blocked, { maxPending: 2, onDrop: (item) => dropped.push(item.generationId) });
    outbox.enqueue(event('gen-1'));
    outbox.enqueue(event('gen-2'));
    expect(outbox.enqueue(event('gen-3'))).toBe(false);
    expect(dropped).toEqual(['gen-3']);
    expect(outbox.stats()).toMatchObject({ pending: 2, dropped: 1 });
    release();
    expect(await outbox.flush(1_000)).toBe(true);
  });

  it('reports a flush that did not finish in time', async () => {
    const outbox = new UsageOutbox(() => Promise.reject(new Error('down')), { maxPending: 5, retryDelayMs: 1_000 });
    outbox.enqueue(event('gen-x'));
    expect(await outbox.flush(50)).toBe(false);
    expect(outbox.stats().pending).toBe(1);
    outbox.close();
  });

  it('resolves enqueueAndWait only after the acknowledgement, retries included; rejects when full', async () => {
    let failuresLeft = 1;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const outbox = new UsageOutbox(
      async () => {
        await gate;
        if (failuresLeft-- > 0) throw new Error('no stream');
      },
      { maxPending: 1, retryDelayMs: 5, concurrency: 1 },
    );
    let acknowledged = false;
    const waiting = outbox.enqueueAndWait(event('gen-w')).then(() => (acknowledged = true));
    await expect(outbox.enqueueAndWait(event('gen-full'))).rejects.toThrow('usage outbox full');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(acknowledged).toBe(false);
    release();
    await waiting;
    expect(outbox.stats()).toMatchObject({ published: 1, retries: 1, dropped: 1 });
  });
});
