import { EventStreamCodec } from '@smithy/core/event-streams';
import { describe, expect, it } from 'vitest';
import { JsonEventStreamMarshaller } from './bedrock-event-stream.js';

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);
const frame = (headers: Record<string, string>, payload: unknown) =>
  codec.encode({
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { type: 'string' as const, value }])),
    body: Buffer.from(JSON.stringify(payload)),
  });
const event = (type: string, payload: unknown) =>
  frame({ ':message-type': 'event', ':event-type': type, ':content-type': 'application/json' }, payload);

/** The frames in one buffer, then cut at odd places, as a socket delivers them. */
async function* body(frames: Uint8Array[], cut = 7): AsyncGenerator<Uint8Array> {
  const all = Buffer.concat(frames);
  for (let offset = 0; offset < all.length; offset += cut) yield all.subarray(offset, offset + cut);
}

async function collect(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('JsonEventStreamMarshaller', () => {
  it('yields each event as {type: payload}, frames split across reads, the padding field kept as sent', async () => {
    const marshaller = new JsonEventStreamMarshaller();
    const events = await collect(
      marshaller.deserialize(
        body([
          event('messageStart', { role: 'assistant', p: 'abc' }),
          event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hé llo' } }),
          event('metadata', { usage: { inputTokens: 3, outputTokens: 5, totalTokens: 8 }, metrics: { latencyMs: 12 } }),
        ]),
        undefined,
      ),
    );
    expect(events).toEqual([
      { messageStart: { role: 'assistant', p: 'abc' } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Hé llo' } } },
      { metadata: { usage: { inputTokens: 3, outputTokens: 5, totalTokens: 8 }, metrics: { latencyMs: 12 } } },
    ]);
  });

  it('throws an exception message as the SDK names it (the class of the member), after the events before it', async () => {
    const marshaller = new JsonEventStreamMarshaller();
    const seen: unknown[] = [];
    const failure = await (async () => {
      for await (const item of marshaller.deserialize(
        body([
          event('messageStart', { role: 'assistant' }),
          frame({ ':message-type': 'exception', ':exception-type': 'throttlingException' }, { message: 'Too many tokens' }),
        ]),
        undefined,
      ))
        seen.push(item);
    })().catch((error: unknown) => error as Error);
    expect(seen).toEqual([{ messageStart: { role: 'assistant' } }]);
    expect(failure).toMatchObject({ name: 'ThrottlingException', message: 'Too many tokens' });
  });

  it('refuses a frame whose checksum is wrong (the SDK codec checks it)', async () => {
    const good = event('messageStart', { role: 'assistant' });
    const bad = Uint8Array.from(good);
    bad[bad.length - 6] ^= 0xff;
    await expect(collect(new JsonEventStreamMarshaller().deserialize(body([bad]), undefined))).rejects.toThrow(/checksum/i);
  });
});
