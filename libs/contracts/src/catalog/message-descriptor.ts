/*
 * A message on the bus is one object: its declaration (message-routes.ts: subject, callers,
 * tenancy), the class of its payload (validated on receipt) and, as types only, what the caller
 * gets back. `RpcClient.send(KeysGet, payload)` then checks the payload against the subject's class and returns the subject's reply type,
 * so a subject cannot be paired with the wrong payload or read as the wrong answer.
 */
import type { EventDeclaration, RequestDeclaration } from './message-routes.js';

/** A payload class: what the receiving service validates the message with. */
export type PayloadClass<T> = abstract new (...args: never[]) => T;

/** Request-reply: one request, one reply (`@MessagePattern(KeysGet.subject)` on the service). */
export interface RpcMessage<Request, Reply> extends RequestDeclaration {
  readonly kind: 'rpc';
  readonly payload: PayloadClass<Request>;
  /** Types only, never set: what `send` returns. */
  readonly reply?: Reply;
}

/** A streamed call: one request, then ordered chunks of `Chunk` (the service returns a `ServedStream`). */
export interface RpcStreamMessage<Request, Chunk> extends RequestDeclaration {
  readonly kind: 'stream';
  readonly payload: PayloadClass<Request>;
  /** Types only, never set: what the stream yields. */
  readonly chunk?: Chunk;
}

/** An event: published, never answered (core NATS or JetStream). The subject keeps its literal type (Nest's `@EventPattern` reads it). */
export interface BusEvent<Payload, Subject extends string = string> extends EventDeclaration<Subject> {
  readonly kind: 'event';
  readonly payload: PayloadClass<Payload>;
}

/** The request a message takes. */
export type RequestOf<M> = M extends RpcMessage<infer R, unknown> | RpcStreamMessage<infer R, unknown> ? R : never;
/** The answer a request-reply message gets. */
export type ReplyOf<M> = M extends RpcMessage<unknown, infer R> ? R : never;
/** What a streamed message yields. */
export type ChunkOf<M> = M extends RpcStreamMessage<unknown, infer C> ? C : never;

/** `rpcMessage<KeysGetRequest, ApiKeyView>(M.keysGet, KeysGetRequest)`: the class must be the request type. */
export function rpcMessage<Request, Reply>(declaration: RequestDeclaration, payload: PayloadClass<Request>): RpcMessage<Request, Reply> {
  return { kind: 'rpc', ...declaration, payload };
}

/** `rpcStream<ChatStreamRequest, StreamPacket>(I.chatStream, ChatStreamRequest)`. */
export function rpcStream<Request, Chunk>(
  declaration: RequestDeclaration,
  payload: PayloadClass<Request>,
): RpcStreamMessage<Request, Chunk> {
  return { kind: 'stream', ...declaration, payload };
}

export function busEvent<Payload, Subject extends string>(
  declaration: EventDeclaration<Subject>,
  payload: PayloadClass<Payload>,
): BusEvent<Payload, Subject> {
  return { kind: 'event', ...declaration, payload };
}

/** The payload of messages that carry none (health, JWKS): an empty object. */
export class EmptyRequest {}
