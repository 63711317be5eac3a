import { JETSTREAM, type UsageRecordedEvent } from '@gw/contracts';
import { ResilientNatsConnection, SINGLE_NODE } from '@gw/messaging';
import { PrivateNatsServer } from '@gw/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JetStreamUsagePublisher, UsageOutbox } from '@gw/usage';

function usageEvent(generationId: string): UsageRecordedEvent {
  return {
    generationId,
    workspaceId: randomUUID(),
    keyHash: 'e'.repeat(64),
    userId: randomUUID(),
    model: 'sim/gpt-4o-mini',
    provider: 'simulator-openai',
    upstreamModel: 'gpt-4o-mini',
    status: 'succeeded',
    isByok: false,
    promptTokens: 1,
    completionTokens: 2,
    cachedTokens: 0,
    reasoningTokens: 0,
    tokensEstimated: false,
    cost: '0.000001',
    upstreamCost: '0.000001',
    latencyMs: 3,
    createdAt: new Date().toISOString(),
  };
}

/** The outbox against a real nats-server with JetStream, killed and restarted under it. */
describe('usage outbox to JetStream', () => {
  let server: PrivateNatsServer;
  let nats: ResilientNatsConnection;
  let outbox: UsageOutbox;

  beforeAll(async () => {
    server = await PrivateNatsServer.start();
    nats = await ResilientNatsConnection.open({ servers: server.url, name: 'usage-outbox-spec' });
    outbox = new UsageOutbox(new JetStreamUsagePublisher(nats.connection, SINGLE_NODE).publish, {
      maxPending: 1_000,
      retryDelayMs: 50,
      maxRetryDelayMs: 250,
    });
  });

  afterAll(async () => {
    outbox?.close();
    await nats?.close();
    await server?.stop();
  });

  async function storedIds(): Promise<string[]> {
    const info = await (await jetstreamManager(nats.connection)).streams.info(JETSTREAM.usageStream);
    const consumer = await jetstream(nats.connection).consumers.get(JETSTREAM.usageStream);
    const ids: string[] = [];
    if (info.state.messages === 0) return ids;
    for await (const message of await consumer.fetch({ max_messages: info.state.messages, expires: 2_000 })) {
      // One event alone, or several in a batch message.
      const body = message.json<UsageRecordedEvent | { events: UsageRecordedEvent[] }>();
      ids.push(...('events' in body ? body.events : [body]).map((event) => event.generationId));
      if (message.info.pending === 0) break;
    }
    return ids;
  }

  it('stores every generation (batched when they queue up), and drops a lone event sent again', async () => {
    const ids = Array.from({ length: 25 }, () => `gen-${randomUUID()}`);
    for (const id of ids) outbox.enqueue(usageEvent(id));
    expect(await outbox.flush(10_000)).toBe(true);
    outbox.enqueue(usageEvent(ids[0]!)); // the same generation again, alone: JetStream drops it by Nats-Msg-Id
    expect(await outbox.flush(10_000)).toBe(true);
    const stored = await storedIds();
    expect(stored.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
    const info = await (await jetstreamManager(nats.connection)).streams.info(JETSTREAM.usageStream);
    expect(info.state.messages).toBeLessThan(25); // fewer messages than events: they went out in batches
  });

  it('holds events while NATS is down and delivers every one, once, after it returns', async () => {
    const before = outbox.stats().published;
    await server.halt();
    const ids = Array.from({ length: 20 }, () => `gen-${randomUUID()}`);
    for (const id of ids) expect(outbox.enqueue(usageEvent(id))).toBe(true); // returns at once: off the request path
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(outbox.stats().pending).toBe(20);
    await server.resume();
    expect(await outbox.flush(20_000)).toBe(true);
    // Sent again by the outbox or by its publisher's resend: either way each event is stored once.
    expect(outbox.stats().published - before).toBe(20);
    const stored = await storedIds();
    expect(stored.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
  });
});
