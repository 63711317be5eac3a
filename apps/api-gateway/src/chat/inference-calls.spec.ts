import { ChatCreate, type ChatCompletionRequestDto, type ChatCreateRequest, type Principal } from '@gw/contracts';
import type { RpcClient } from '@gw/messaging';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { GatewayEnv } from '../env.js';
import type { ResponseCacheHits } from '../response-cache/cache-hits.service.js';
import { CancellableInferenceCalls, type InferenceCallCanceller } from './inference-calls.js';

/*
 * A non-streamed answer is forwarded as the JSON text inference serialised, not parsed
 * and serialised again. The client must not see a difference: the same bytes, status and
 * headers as when the gateway sent the parsed object (Fastify's own serialisation).
 */
const answers: unknown[] = [
  {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_764_000_000,
    model: 'gpt-4o-mini',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'Hé \u2028 😀 "quoted" \\ back' }, finish_reason: 'stop', logprobs: null },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, cost: 0.000_001_5 },
  },
  { nested: { '2': 'numeric keys', a: [1, -0, 1e21, 5e-324, true, null] } },
];

const noHits = { answer: () => Promise.resolve(undefined) } as unknown as ResponseCacheHits;

describe('CancellableInferenceCalls.forward', () => {
  it.each(answers)('answers the client byte for byte as sending the parsed answer did', async (answer) => {
    const json = JSON.stringify(answer);
    const sent: unknown[] = [];
    const rpc = {
      sendJson: (_message: unknown, payload: unknown) => {
        sent.push(payload);
        return Promise.resolve(json);
      },
    } as unknown as RpcClient;
    const canceller = { cancel: () => undefined } as unknown as InferenceCallCanceller;
    const calls = new CancellableInferenceCalls(rpc, canceller, noHits, { INFERENCE_TIMEOUT_MS: 1_000 } as GatewayEnv);
    const payload = { principal: {} as Principal, body: {}, serviceMetadata: false } as ChatCreateRequest<ChatCompletionRequestDto>;

    const app = Fastify();
    app.post('/before', async (_request, reply) => {
      void reply.status(200).send(JSON.parse(json));
      return reply;
    });
    app.post('/after', async (_request, reply) => {
      await calls.forward(reply, ChatCreate, payload);
      return reply;
    });
    const before = await app.inject({ method: 'POST', url: '/before' });
    const after = await app.inject({ method: 'POST', url: '/after' });
    await app.close();

    expect(after.statusCode).toBe(200);
    expect(after.rawPayload.equals(before.rawPayload)).toBe(true);
    expect(after.body).toBe(json);
    expect(after.headers['content-type']).toBe(before.headers['content-type']);
    expect(after.headers['content-length']).toBe(before.headers['content-length']);
    expect(sent[0]).toMatchObject({ requestId: expect.any(String) });
  });

  it('answers a response-cache hit the edge found without calling inference', async () => {
    const sent: unknown[] = [];
    const rpc = { sendJson: (_message: unknown, payload: unknown) => (sent.push(payload), Promise.resolve('{}')) } as unknown as RpcClient;
    const asked: unknown[] = [];
    const hits = {
      answer: (door: string, payload: unknown) => (asked.push([door, payload]), Promise.resolve({ hit: '{"id":"gen-hit"}' })),
    };
    const calls = new CancellableInferenceCalls(
      rpc,
      { cancel: () => undefined } as unknown as InferenceCallCanceller,
      hits as unknown as ResponseCacheHits,
      { INFERENCE_TIMEOUT_MS: 1_000 } as GatewayEnv,
    );
    const payload = { principal: {} as Principal, body: {}, serviceMetadata: false } as ChatCreateRequest<ChatCompletionRequestDto>;
    const app = Fastify();
    app.post('/', async (_request, reply) => {
      await calls.forward(reply, ChatCreate, payload);
      return reply;
    });
    const answer = await app.inject({ method: 'POST', url: '/' });
    await app.close();

    expect(answer.statusCode).toBe(200);
    expect(answer.body).toBe('{"id":"gen-hit"}');
    expect(answer.headers['x-service-cache-status']).toBe('HIT');
    expect(asked).toEqual([['chat', payload]]);
    expect(sent).toEqual([]);
  });

  it('tells inference the key the edge found nothing under, so it neither hashes nor reads it again', async () => {
    const sent: unknown[] = [];
    const rpc = {
      sendJson: (_message: unknown, payload: unknown) => (sent.push(payload), Promise.resolve('{"id":"gen-1"}')),
    } as unknown as RpcClient;
    const hits = { answer: () => Promise.resolve({ missKey: 'key-of-the-body' }) } as unknown as ResponseCacheHits;
    const calls = new CancellableInferenceCalls(rpc, { cancel: () => undefined } as unknown as InferenceCallCanceller, hits, {
      INFERENCE_TIMEOUT_MS: 1_000,
    } as GatewayEnv);
    const payload = { principal: {} as Principal, body: {}, serviceMetadata: false } as ChatCreateRequest<ChatCompletionRequestDto>;
    const app = Fastify();
    app.post('/', async (_request, reply) => {
      await calls.forward(reply, ChatCreate, payload);
      return reply;
    });
    const answer = await app.inject({ method: 'POST', url: '/' });
    await app.close();

    expect(answer.body).toBe('{"id":"gen-1"}');
    expect(sent).toEqual([{ ...payload, requestId: expect.any(String), cacheMissKey: 'key-of-the-body' }]);
  });
});
