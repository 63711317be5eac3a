import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '@gw/provider-simulator';
import { chunkDelayMs, slowUpstreamModel } from './concurrency-scenario.ts';
import { complete, stallOnce, streamOnce, streamPool, type StreamTarget } from './stream-client.ts';

let simulator: RunningSimulator;
beforeAll(async () => {
  simulator = await startSimulator();
});
afterAll(() => simulator.close());

const target = (model: string): StreamTarget => ({
  name: 'direct',
  label: 'simulator',
  url: `${simulator.url}/openai/v1/chat/completions`,
  headers: { 'content-type': 'application/json', authorization: 'Bearer sk-sim' },
  body: JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'Say hello' }],
    stream: true,
    stream_options: { include_usage: true },
  }),
});

describe('the bench stream client, on the real simulator', () => {
  it('reads a default stream as 12 events ending in [DONE], timing the first data byte', async () => {
    const pool = streamPool(target('gpt-4o-mini'), 1);
    try {
      const outcome = await streamOnce(pool, target('gpt-4o-mini'));
      expect(outcome).toMatchObject({ status: 200, events: 12, done: true, errorEvents: 0 });
      expect(complete(outcome)).toBe(true);
      expect(outcome.firstDataMs).toBeGreaterThan(0);
      expect(outcome.firstDataMs).toBeLessThanOrEqual(outcome.totalMs);
    } finally {
      await pool.close();
    }
  });

  it('counts a stream cut short, or an error answer, as incomplete', async () => {
    const pool = streamPool(target('gpt-4o-mini'), 1);
    try {
      const cut = await streamOnce(pool, target('gpt-4o-mini;cut=2'));
      expect(cut.done).toBe(false);
      expect(complete(cut)).toBe(false);
      const refused = await streamOnce(pool, target('gpt-4o-mini;status=503'));
      expect(refused.status).toBe(503);
      expect(refused.body).toMatch(/^503 {"error"/);
      expect(complete(refused)).toBe(false);
      const broken = await streamOnce(pool, target('gpt-4o-mini;stream-error=2'));
      expect(complete(broken)).toBe(false);
    } finally {
      await pool.close();
    }
  });

  it('makes a slow stream last about as long as asked: the pause is spread over the frames', async () => {
    expect(chunkDelayMs(60)).toBe(2727);
    const pool = streamPool(target(slowUpstreamModel(1)), 1);
    try {
      const outcome = await streamOnce(pool, target(slowUpstreamModel(1)));
      expect(outcome).toMatchObject({ status: 200, events: 23, done: true });
      // 22 pauses of 45 ms; timers only run late.
      expect(outcome.totalMs).toBeGreaterThanOrEqual(22 * chunkDelayMs(1) - 5);
      expect(outcome.totalMs).toBeLessThan(3_000);
    } finally {
      await pool.close();
    }
  });

  it('tells, once a stalled client reads again, a stream that still ends from one cut short', async () => {
    const stalled = stallOnce(target('gpt-4o-mini;reply-tokens=30000'));
    expect(await stalled.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await stalled.release()).toBe('complete');
    const cut = stallOnce(target('gpt-4o-mini;cut=2'));
    expect(await cut.status).toBe(200);
    expect(await cut.release()).toBe('cut');
    const slow = stallOnce(target(slowUpstreamModel(5)));
    expect(await slow.status).toBe(200);
    expect(await slow.release(0.3)).toBe('still-running');
  });

  it('a stalled client stops reading its socket: the server writes far more than the client reads', async () => {
    // 30,000 tokens is about 3 MB of SSE; the client's socket must have read a small part of it.
    const stalled = stallOnce(target('gpt-4o-mini;reply-tokens=30000'));
    expect(await stalled.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const whileStalled = stalled.bytesRead();
    expect(whileStalled).toBeGreaterThan(0);
    expect(whileStalled).toBeLessThan(512 * 1024);
    expect(await stalled.release()).toBe('complete');
  }, 20_000);
});
