import {
  ChatCreate,
  ChatStream,
  KeysGet,
  type ApiKeyView,
  type ChatCompletionRequestDto,
  type ChatCompletionView,
  type Principal,
  type StreamPacket,
} from '@gw/contracts';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { RpcClient } from './rpc-client.js';
import type { RpcStream } from './rpc-stream.js';

/*
 * Typed messages are checked by the compiler: the `typecheck` target (tsc over the
 * specs) fails when a line marked `@ts-expect-error` compiles, i.e. when a subject could be
 * paired with the wrong payload or read as the wrong reply. The calls are never run.
 */
const principal = {} as Principal;
const timeouts = { firstPacketTimeoutMs: 1_000, idleTimeoutMs: 1_000 };
const body = {} as ChatCompletionRequestDto;

function typedCalls(rpc: RpcClient): void {
  expectTypeOf(rpc.send(KeysGet, { principal, hash: 'a'.repeat(64) })).toEqualTypeOf<Promise<ApiKeyView>>();
  expectTypeOf(rpc.send(ChatCreate, { principal, body })).toEqualTypeOf<Promise<ChatCompletionView>>();
  expectTypeOf(rpc.stream(ChatStream, { principal, body, streamId: 'stream-1' }, timeouts)).toEqualTypeOf<RpcStream<StreamPacket>>();

  // @ts-expect-error KeysGet needs a hash
  void rpc.send(KeysGet, { principal });
  // @ts-expect-error a chat payload is not a KeysGet payload
  void rpc.send(KeysGet, { principal, body: {} });
  // @ts-expect-error the hash is a string
  void rpc.send(KeysGet, { principal, hash: 42 });
  // @ts-expect-error the reply of KeysGet is an ApiKeyView, not a chat completion
  const wrongReply: Promise<ChatCompletionView> = rpc.send(KeysGet, { principal, hash: 'a'.repeat(64) });
  void wrongReply;
  // @ts-expect-error a streamed message needs its stream id
  void rpc.stream(ChatStream, { principal, body: {} }, timeouts);
  // @ts-expect-error a request-reply message is not a stream
  void rpc.stream(ChatCreate, { principal, body: {} }, timeouts);
  // @ts-expect-error a stream is not a request-reply message
  void rpc.send(ChatStream, { principal, body: {}, streamId: 'stream-1' });
}

describe('typed messages', () => {
  it('name their subject and payload class at run time', () => {
    expect(KeysGet).toMatchObject({ kind: 'rpc', subject: 'management.keys.get' });
    expect(ChatStream).toMatchObject({ kind: 'stream', subject: 'inference.chat.stream' });
    expect(typeof typedCalls).toBe('function');
  });
});
