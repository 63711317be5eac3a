import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from './index.ts';
import { OPENAI_AUTH, post } from './spec-helpers.ts';
import type { StreamStats } from './stream-stats.ts';

/** GET /sim/streams: how tests see that a client (the gateway) abandoned a stream. */
describe('stream stats', () => {
  let sim: RunningSimulator;
  const stats = async (key: string): Promise<StreamStats> =>
    (await fetch(`${sim.url}/sim/streams?key=${encodeURIComponent(key)}`)).json() as Promise<StreamStats>;
  const body = (model: string) => ({ model, stream: true, messages: [{ role: 'user', content: 'Count my frames' }] });

  beforeAll(async () => {
    sim = await startSimulator();
  });

  afterAll(async () => {
    await sim.close();
  });

  it('counts a stream that ran to its end as finished, with every frame sent', async () => {
    const model = 'gpt-4o-mini;chunk-delay=1;fault-key=finished';
    await post(`${sim.url}/openai/v1/chat/completions`, body(model), OPENAI_AUTH);
    const counts = await stats(model);
    expect(counts).toMatchObject({ started: 1, finished: 1, abandoned: 0 });
    expect(counts.framesSent).toBeGreaterThan(5);
  });

  it('counts a stream whose client went away as abandoned, and stops sending to it', async () => {
    const model = 'gpt-4o-mini;chunk-delay=40;fault-key=abandoned';
    const controller = new AbortController();
    const response = await fetch(`${sim.url}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...OPENAI_AUTH },
      body: JSON.stringify(body(model)),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const counts = await stats(model);
    expect(counts).toMatchObject({ started: 1, finished: 0, abandoned: 1 });
    expect(counts.framesSent).toBeLessThan(5);
  });

  it('knows nothing of a key it never streamed', async () => {
    expect(await stats('never')).toEqual({ received: 0, started: 0, finished: 0, abandoned: 0, framesSent: 0 });
  });
});
