import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENTS, SUBJECTS, type ChatStreamRequest } from '@gw/contracts';
import { GatewayError, toEnvelope } from '@gw/errors';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { INFERENCE_RESENDS } from './inference-resends.js';

/** Headers of an OpenAI-style event stream; proxies must neither buffer nor cache it. */
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

const DONE = 'data: [DONE]\n\n';

/**
 * Relays a streamed chat completion from inference to the HTTP client as OpenAI streams it.
 * Until the first chunk arrives nothing is committed, so a refusal (402, 404, a provider's
 * 429 on every endpoint, ...) is thrown and rendered as the usual JSON envelope. After it,
 * each chunk is written as it arrives (`data: <chunk>\n\n`), a clean end adds
 * `data: [DONE]`, and a failure adds one error chunk (`errorChunk`) and ends without
 * `[DONE]`, so clients raise instead of taking a cut answer for a whole one (ADR 0016).
 * When the client goes away, inference is told to abort the provider call.
 */
@Injectable()
export class ChatStreamRelay {
  private readonly logger = new Logger(ChatStreamRelay.name);

  constructor(
    private readonly rpc: RpcClient,
    @Inject(ResilientNatsConnection) private readonly nats: ResilientNatsConnection,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  async relay(reply: FastifyReply, request: Omit<ChatStreamRequest, 'streamId'>): Promise<void> {
    const streamId = randomUUID();
    const payload: ChatStreamRequest = { ...request, streamId };
    const stream = this.rpc.stream<string>(SUBJECTS.inference.chatStream, payload, {
      firstPacketTimeoutMs: this.env.INFERENCE_TIMEOUT_MS,
      idleTimeoutMs: this.env.STREAM_IDLE_TIMEOUT_MS,
      resendUncommitted: INFERENCE_RESENDS,
    });
    const raw = reply.raw;
    let finished = false;
    const onClose = (): void => {
      if (finished) return;
      finished = true;
      void stream.return();
      this.cancel(streamId);
    };
    raw.once('close', onClose);

    let first: IteratorResult<string>;
    try {
      first = await stream.next();
    } catch (error) {
      raw.off('close', onClose);
      if (finished) return; // the client left while waiting: nobody to answer
      finished = true;
      if (error instanceof GatewayError && error.errorType === 'timeout') this.cancel(streamId);
      throw error; // not committed yet: the exception filter sends the envelope with its status
    }
    if (finished) return;

    // The error chunk of a later failure repeats the stream's id, created, model and provider.
    const head = chunkHead(first.value);
    reply.hijack();
    raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), ...SSE_HEADERS });
    try {
      for (let next = first; !next.done; next = await stream.next()) {
        if (finished) return;
        if (!raw.write(`data: ${next.value}\n\n`)) await drained(raw);
      }
      if (!finished) raw.end(DONE);
    } catch (error) {
      if (finished) return;
      const failure = error instanceof GatewayError ? error : new GatewayError(500, 'Internal server error');
      // A stalled stream (idle timeout) or one the client could not keep up with may still be
      // running upstream; for a stream inference already ended, the cancellation is a no-op.
      this.cancel(streamId);
      raw.end(`data: ${JSON.stringify(errorChunk(head, failure))}\n\n`);
    } finally {
      finished = true;
      raw.off('close', onClose);
    }
  }

  /** Every inference replica hears it; the one running the stream (or request) aborts the provider call. */
  cancel(streamId: string): void {
    try {
      this.nats.connection.publish(EVENTS.streamCancelled, JSON.stringify({ streamId }));
    } catch (error) {
      this.logger.warn({ err: error, streamId }, 'Could not publish a stream cancellation');
    }
  }
}

interface ChunkHead {
  id: string;
  created: number;
  model: string;
  provider?: string | null;
}

function chunkHead(first: string | undefined): ChunkHead | undefined {
  if (first === undefined) return undefined;
  try {
    const { id, created, model, provider } = JSON.parse(first) as ChunkHead;
    return { id, created, model, provider };
  } catch {
    return undefined;
  }
}

/**
 * The last event of a stream that failed after its first chunk, as OpenRouter sends it: a
 * chunk whose one choice finishes with `error`, carrying the envelope's `error` (code,
 * message, metadata.error_type). The openai client throws on `error`; OpenRouter's SDK parses
 * it as a chunk and exposes it.
 */
export function errorChunk(head: ChunkHead | undefined, failure: GatewayError): Record<string, unknown> {
  const { error } = toEnvelope(failure);
  if (!head) return { error };
  return {
    ...head,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error', native_finish_reason: null }],
    error,
  };
}

/** Waits until the socket takes more, or is gone. */
function drained(raw: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.on('drain', done);
    raw.on('close', done);
  });
}
