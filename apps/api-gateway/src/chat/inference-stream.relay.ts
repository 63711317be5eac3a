import { Inject, Injectable } from '@nestjs/common';
import { ChatStream, type ChatCompletionRequestDto, type ChatStreamRequest, type RpcStreamMessage, type StreamPacket } from '@gw/contracts';
import { GatewayError, toEnvelope } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { SSE_DATA_FRAME, type CacheDoor, type PacketFrame } from '@gw/usage';
import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { streamStarted } from '../metrics/http-metrics.js';
import { InferenceCallCanceller } from './inference-calls.js';
import { INFERENCE_RESENDS } from './inference-resends.js';
import { StreamBufferBudget } from '../limits/stream-buffer-budget.js';
import { closeIfStalled, drained } from '../limits/stream-stall.js';
import { CACHE_STATUS_RESPONSE_HEADER, streamHitMarkerLength } from '../response-cache/cache-headers.js';
import { ResponseCacheHits } from '../response-cache/cache-hits.service.js';

/** Headers of an OpenAI-style event stream; proxies must neither buffer nor cache it. */
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

const DONE = 'data: [DONE]\n\n';

/**
 * How one front door's stream goes on the wire. The relay is the same for every streamed
 * endpoint (commit on the first packet, back-pressure, cancellation, idle timeout): inference
 * sends the client's bytes already framed, one or more frames a packet, written as they come;
 * only the end differs: chat completions end with `[DONE]`, the other doors without a marker.
 */
export interface StreamFraming<Body extends object = Record<string, unknown>> {
  /** The message inference streams this endpoint on. */
  message: RpcStreamMessage<ChatStreamRequest<Body>, StreamPacket>;
  /** The bytes of a clean end. */
  end: string;
  /**
   * The last event of a stream that failed after its first packet; it may repeat the first
   * packet (id, model, ...) or follow the last one sent (a Responses `sequence_number`).
   */
  errorFrame(firstPacket: string | undefined, failure: GatewayError, lastPacket?: string): string;
  /** Response headers the first packet calls for, set before the stream is committed. */
  headersOf?(firstPacket: string): Record<string, string> | undefined;
  /** The door whose cached streams the gateway replays itself, and its packets' framing. */
  cache?: { door: CacheDoor; frame: PacketFrame };
}

/** OpenAI's chat-completions stream. */
export const CHAT_COMPLETIONS_SSE: StreamFraming<ChatCompletionRequestDto> = {
  message: ChatStream,
  end: DONE,
  cache: { door: 'chat', frame: SSE_DATA_FRAME },
  errorFrame: (firstPacket, failure) => `data: ${JSON.stringify(errorChunk(chunkHead(firstPacket), failure))}\n\n`,
};

const decoder = new TextDecoder();

/** A packet as text, for the error frame (only when a stream fails). */
function packetText(packet: StreamPacket): string {
  return decoder.decode(packet);
}

/**
 * Relays a streamed chat completion from inference to the HTTP client as OpenAI streams it.
 * Until the first chunk arrives nothing is committed, so a refusal (402, 404, a provider's
 * 429 on every endpoint, ...) is thrown and rendered as the usual JSON envelope. After it,
 * each chunk is written as it arrives (`data: <chunk>\n\n`), a clean end adds
 * `data: [DONE]`, and a failure adds one error chunk (`errorChunk`) and ends without
 * `[DONE]`, so clients raise instead of taking a cut answer for a whole one.
 * When the client goes away, inference is told to abort the provider call
 * (`InferenceCallCanceller`). Inference sends the chunks as frames, the client's bytes, which
 * are written without being read.
 */
@Injectable()
export class InferenceStreamRelay {
  constructor(
    private readonly rpc: RpcClient,
    private readonly canceller: InferenceCallCanceller,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    @Inject(StreamBufferBudget) private readonly budget: StreamBufferBudget,
    private readonly hits: ResponseCacheHits,
  ) {}

  async relay<Body extends object>(
    reply: FastifyReply,
    request: Omit<ChatStreamRequest<Body>, 'streamId'>,
    framing: StreamFraming<Body>,
  ): Promise<void> {
    const replayed = framing.cache ? await this.hits.replay(framing.cache.door, request, framing.cache.frame) : undefined;
    if (replayed) return this.replayHit(reply, replayed, framing);
    const streamId = randomUUID();
    const payload: ChatStreamRequest<Body> = { ...request, streamId };
    const stream = this.rpc.stream(framing.message, payload, {
      firstPacketTimeoutMs: this.env.INFERENCE_TIMEOUT_MS,
      idleTimeoutMs: this.env.STREAM_IDLE_TIMEOUT_MS,
      resendUncommitted: INFERENCE_RESENDS,
      // What a client slower than its provider makes the gateway hold is bounded in bytes, per
      // stream and for the whole process; past either the provider call is cancelled at once
      // and the stream ends with a slow_consumer error.
      maxBufferedBytes: this.env.STREAM_MAX_BUFFERED_BYTES,
      budget: this.budget,
      onSlowConsumer: () => this.canceller.cancel(streamId),
      // Flow control: inference sends at most this far ahead of what the client took
      // (credit is granted as packets are read, which is after the socket drained), so a client
      // that stopped reading holds one window here and pauses its provider; the bounds above and
      // the stall timeout still end a stream whose client never drains.
      window: this.env.STREAM_FLOW_WINDOW_BYTES || undefined,
    });
    const raw = reply.raw;
    let finished = false;
    const onClose = (): void => {
      if (finished) return;
      finished = true;
      void stream.return();
      this.canceller.cancel(streamId);
    };
    raw.once('close', onClose);

    let first: IteratorResult<StreamPacket>;
    try {
      first = await stream.next();
    } catch (error) {
      raw.off('close', onClose);
      if (finished) return; // the client left while waiting: nobody to answer
      finished = true;
      if (error instanceof GatewayError && error.errorType === 'timeout') this.canceller.cancel(streamId);
      throw error; // not committed yet: the exception filter sends the envelope with its status
    }
    if (finished) return;
    if (first.done) {
      // Nothing to relay: a 200 with only [DONE] would pass for an empty answer.
      finished = true;
      raw.off('close', onClose);
      throw new GatewayError(502, 'The stream ended before its first chunk', { errorType: 'provider_unavailable' });
    }

    // A stream replayed from the response cache starts with a marker: a header, not bytes for the client.
    const marker = streamHitMarkerLength(first.value);
    if (marker > 0) {
      first = { done: false, value: first.value.subarray(marker) };
      void reply.header(CACHE_STATUS_RESPONSE_HEADER, 'HIT');
    }
    // The failure frame of a later failure repeats what the first packet said (id, model, ...).
    const firstPacket = first.value;
    let lastPacket = firstPacket;
    reply.hijack();
    const streamEnded = streamStarted(reply.request);
    const extra = framing.headersOf?.(packetText(firstPacket));
    raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), ...extra, ...SSE_HEADERS });
    try {
      for (let next: IteratorResult<StreamPacket> = first; !next.done; next = await stream.next()) {
        if (finished) return;
        const packet = next.value;
        lastPacket = packet;
        if (!raw.write(packet)) await drained(raw, this.env.STREAM_STALL_TIMEOUT_MS);
      }
      if (!finished) {
        raw.end(framing.end);
        // The stream's in-flight slot is held until the client has taken the end.
        if (!raw.writableFinished) closeIfStalled(raw, this.env.STREAM_STALL_TIMEOUT_MS);
      }
    } catch (error) {
      if (finished) return;
      const failure = error instanceof GatewayError ? error : new GatewayError(500, 'Internal server error');
      // A stalled stream (idle timeout) or one the client could not keep up with may still be
      // running upstream; for a stream inference already ended, the cancellation is a no-op.
      this.canceller.cancel(streamId);
      // The error event of a failure may repeat the stream's first packet (its id, model, ...).
      raw.end(framing.errorFrame(packetText(firstPacket), failure, packetText(lastPacket)));
      // A client that stopped reading (slow_consumer) may never take it: its socket goes too.
      if (!raw.writableFinished) closeIfStalled(raw, this.env.STREAM_STALL_TIMEOUT_MS);
    } finally {
      finished = true;
      raw.off('close', onClose);
      streamEnded();
    }
  }

  /** A cached stream answered here: its frames as inference would replay them, then the door's end. */
  private async replayHit<Body extends object>(reply: FastifyReply, frames: string[], framing: StreamFraming<Body>): Promise<void> {
    void reply.header(CACHE_STATUS_RESPONSE_HEADER, 'HIT');
    reply.hijack();
    const raw = reply.raw;
    const streamEnded = streamStarted(reply.request);
    const extra = frames.length > 0 ? framing.headersOf?.(frames[0]!) : undefined;
    raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), ...extra, ...SSE_HEADERS });
    try {
      for (const frame of frames) {
        if (raw.destroyed) return;
        if (!raw.write(frame)) await drained(raw, this.env.STREAM_STALL_TIMEOUT_MS);
      }
      if (raw.destroyed) return;
      raw.end(framing.end);
      if (!raw.writableFinished) closeIfStalled(raw, this.env.STREAM_STALL_TIMEOUT_MS);
    } finally {
      streamEnded();
    }
  }
}

interface ChunkHead {
  id: string;
  created: number;
  model: string;
  provider?: string | null;
}

/** The head of the stream's first chunk: its first `data:` line. */
function chunkHead(first: string | undefined): ChunkHead | undefined {
  if (!first?.startsWith('data: ')) return undefined;
  const lineEnd = first.indexOf('\n');
  const json = first.slice('data: '.length, lineEnd === -1 ? undefined : lineEnd);
  try {
    const { id, created, model, provider } = JSON.parse(json) as ChunkHead;
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
function errorChunk(head: ChunkHead | undefined, failure: GatewayError): Record<string, unknown> {
  const { error } = toEnvelope(failure);
  if (!head) return { error };
  return {
    ...head,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error', native_finish_reason: null }],
    error,
  };
}
