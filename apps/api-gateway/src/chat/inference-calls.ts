import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  CallCancelled,
  ChatCreate,
  MessagesCreate,
  ResponsesCreate,
  type CallCancelledEvent,
  type ChatCreateRequest,
  type RpcMessage,
} from '@gw/contracts';
import type { CacheDoor } from '@gw/usage';
import { ResilientNatsConnection, RpcClient, type JsonText } from '@gw/messaging';
import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { INFERENCE_RESENDS } from './inference-resends.js';
import { CACHE_STATUS_RESPONSE_HEADER, cacheStatusFrom } from '../response-cache/cache-headers.js';
import { ResponseCacheHits } from '../response-cache/cache-hits.service.js';

/** The front doors whose whole answers a response-cache hit may answer at the edge, by subject. */
const CACHE_DOORS: ReadonlyMap<string, CacheDoor> = new Map([
  [ChatCreate.subject, 'chat'],
  [ResponsesCreate.subject, 'responses'],
  [MessagesCreate.subject, 'messages'],
]);

/** What Fastify sets for an object it serialises itself: a forwarded JSON answer gets the same header. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Tells inference to stop a call whose client is gone. The gateway names each inference call
 * (a stream's `streamId`, a non-streamed call's `requestId`); the event
 * `events.inference.stream.cancelled` (its name predates non-streamed calls) reaches
 * every inference replica, and the one running the call aborts its provider request.
 */
@Injectable()
export class InferenceCallCanceller {
  private readonly logger = new Logger(InferenceCallCanceller.name);

  constructor(@Inject(ResilientNatsConnection) private readonly nats: ResilientNatsConnection) {}

  cancel(callId: string): void {
    try {
      this.nats.connection.publish(CallCancelled.subject, JSON.stringify({ streamId: callId } satisfies CallCancelledEvent));
    } catch (error) {
      this.logger.warn({ err: error, callId }, 'Could not publish an inference call cancellation');
    }
  }
}

/**
 * Non-streamed inference calls of the front doors (chat completions, Messages, Responses): a
 * client that leaves before the answer cancels the provider call, so nobody pays for tokens
 * nobody reads. Streams go through `InferenceStreamRelay`, which cancels the same way.
 */
@Injectable()
export class CancellableInferenceCalls {
  constructor(
    private readonly rpc: RpcClient,
    private readonly canceller: InferenceCallCanceller,
    private readonly hits: ResponseCacheHits,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  /**
   * Sends `payload` (with a fresh `requestId`) as `message` and answers `reply` with the answer's
   * JSON as inference serialised it (neither parsed nor serialised again here), status
   * 200; cancelled when `reply`'s client goes away first. A failure is thrown, for the exception filter.
   */
  async forward<Body extends object, Reply>(
    reply: FastifyReply,
    message: RpcMessage<ChatCreateRequest<Body>, Reply>,
    payload: ChatCreateRequest<Body>,
  ): Promise<void> {
    const answer = await this.send(reply, message, payload);
    void reply.status(200).type(JSON_CONTENT_TYPE).send(answer);
  }

  /** Sends `payload` (with a fresh `requestId`) as `message`, cancelled when `reply`'s client goes away first; the answer as JSON text. */
  async send<Body extends object, Reply>(
    reply: FastifyReply,
    message: RpcMessage<ChatCreateRequest<Body>, Reply>,
    payload: ChatCreateRequest<Body>,
  ): Promise<JsonText<Reply>> {
    const door = CACHE_DOORS.get(message.subject);
    const found = door ? await this.hits.answer(door, payload) : undefined;
    if (found && 'hit' in found) {
      void reply.header(CACHE_STATUS_RESPONSE_HEADER, 'HIT');
      return found.hit as JsonText<Reply>;
    }
    const requestId = randomUUID();
    let answered = false;
    const onClose = () => {
      if (!answered) this.canceller.cancel(requestId);
    };
    reply.raw.once('close', onClose);
    try {
      const sent = found ? { ...payload, requestId, cacheMissKey: found.missKey } : { ...payload, requestId };
      return await this.rpc.sendJson(message, sent, this.env.INFERENCE_TIMEOUT_MS, {
        resendUncommitted: INFERENCE_RESENDS,
        onReplyHeaders: cacheStatusFrom(reply),
      });
    } finally {
      answered = true;
      reply.raw.off('close', onClose);
    }
  }
}
