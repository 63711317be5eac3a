import Anthropic from '@anthropic-ai/sdk';
import type {} from '@gw/testing';
import { request } from 'node:http';
import { expect, inject } from 'vitest';
import { noteAnswer } from './openapi-answers.setup.js';

export const stack = inject('stack');

export interface Envelope {
  error: { code: number; message: string; metadata?: Record<string, unknown> };
}

/** A raw call through the gateway, for status codes and envelopes the SDKs hide. */
export async function call(
  path: string,
  init: { method?: string; key?: string | null; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? stack.apiKey : init.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${stack.baseUrl}${path}`, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the test will say so
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** Asserts the spec §7.1 envelope: code equals the status, a message, and the canonical type. */
export function envelopeOf(result: { status: number; body: unknown }): Envelope['error'] {
  const envelope = result.body as Envelope;
  if (!envelope?.error) throw new Error(`not an error envelope: ${JSON.stringify(result.body)}`);
  if (envelope.error.code !== result.status) throw new Error(`code ${envelope.error.code} != status ${result.status}`);
  if (typeof envelope.error.message !== 'string' || envelope.error.message.length === 0) throw new Error('empty message');
  return envelope.error;
}

/**
 * POSTs a large body with node:http and resolves on the response. The gateway answers 413 from
 * the Content-Length alone, before reading the body, and then closes the connection: so the
 * headers and a first slice go out, the rest only if no answer came within a second. Writing
 * it all at once raced the server's close (EPIPE) and made the test flaky.
 */
export function postLarge(path: string, body: Buffer): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${stack.baseUrl}${path}`);
    const outgoing = request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json', 'content-length': body.length },
    });
    let answered = false;
    const rest = setTimeout(() => outgoing.end(body.subarray(64 * 1024)), 1_000);
    outgoing.on('response', (response) => {
      answered = true;
      clearTimeout(rest);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        noteAnswer({
          method: 'POST',
          url: url.href,
          status: response.statusCode ?? 0,
          contentType: response.headers['content-type'] ?? null,
          body: text,
        });
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) });
        outgoing.destroy();
      });
    });
    outgoing.on('error', (error) => {
      clearTimeout(rest);
      if (!answered) reject(error);
    });
    outgoing.write(body.subarray(0, 64 * 1024));
  });
}

/** @anthropic-ai/sdk on the gateway (it appends `/v1/messages` to the origin), with the stack's key. */
export function anthropicClient(): Anthropic {
  return new Anthropic({ apiKey: stack.apiKey, baseURL: new URL(stack.baseUrl).origin, maxRetries: 0 });
}

/**
 * @anthropic-ai/sdk's `messages.create` (with a system prompt) and `messages.stream` on `model`:
 * each a whole assistant message in Anthropic's shape, the simulator's reply, ending its turn.
 */
export async function expectAnthropicCreateAndStream(anthropic: Anthropic, model: string): Promise<void> {
  const message = await anthropic.messages.create({
    model,
    max_tokens: 256,
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'Tell me about gateways' }],
  });
  expect(message).toMatchObject({ type: 'message', role: 'assistant', model, stop_reason: 'end_turn' });
  expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Simulated reply to: Tell me about gateways/) });
  const final = await anthropic.messages
    .stream({ model, max_tokens: 256, messages: [{ role: 'user', content: 'Tell me about gateways' }] })
    .finalMessage();
  expect(final.stop_reason).toBe('end_turn');
  expect(final.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Simulated reply to: Tell me about gateways/) });
}
