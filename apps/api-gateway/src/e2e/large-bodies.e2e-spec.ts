import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, postLarge } from './e2e-helpers.js';

const MB = 1024 * 1024;

/** A PNG-looking data URL of about `bytes` bytes, as vision clients send images. */
function imageDataUrl(bytes: number): string {
  return `data:image/png;base64,${randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64')}`;
}

const visionMessages = (bytes: number) => [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: imageDataUrl(bytes) } },
    ],
  },
];

/**
 * Issue 9, item 5: bodies over NATS's 1 MB max_payload and up to the documented
 * 10 MB body limit work end to end (gateway -> NATS object store -> inference -> simulator);
 * larger ones get 413 with the envelope. Before: 503 "Message bus unavailable", retryable.
 */
describe('request bodies between 1 MB and 10 MB', () => {
  it('answers a chat completion with a 3 MB image in its content', async () => {
    const result = await call('/chat/completions', { body: { model: 'sim/gpt-4o-mini', messages: visionMessages(3 * MB) } });
    expect(result.status, JSON.stringify(result.body).slice(0, 300)).toBe(200);
    const completion = result.body as { choices: Array<{ message: { content: string } }>; usage: { prompt_tokens: number } };
    expect(completion.choices[0]!.message.content.length).toBeGreaterThan(0);
    expect(completion.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('streams one with a 9 MB image', async () => {
    const result = await call('/chat/completions', {
      body: { model: 'sim/gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: visionMessages(9 * MB) },
    });
    expect(result.status).toBe(200);
    expect(String(result.body)).toContain('data: [DONE]');
  });

  it('answers 413 with the envelope above the 10 MB limit', async () => {
    const tooLarge = await postLarge(
      '/chat/completions',
      Buffer.from(JSON.stringify({ model: 'sim/gpt-4o-mini', messages: visionMessages(11 * MB) })),
    );
    expect(tooLarge.status).toBe(413);
    expect(envelopeOf(tooLarge).metadata?.error_type).toBe('payload_too_large');
  });
});
