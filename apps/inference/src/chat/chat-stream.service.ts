import { Injectable } from '@nestjs/common';
import type { ChatStreamRequest } from '@gw/contracts';
import type { Observable } from 'rxjs';
import type { StreamEvent } from '../providers/provider-adapter.js';
import { DebugTimings } from '../routing/routing-metadata.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { debugChunkView, toChunkView, usageChunkView, type ChunkHead, type ChunkProvenance } from './chat-chunk.mapper.js';
import { ChatPreparation } from './chat-preparation.service.js';
import { newGenerationId } from './generation-ids.js';
import { ModelCalls } from './model-calls.service.js';
import { StreamCancellations } from './stream-cancellations.js';
import { observeStream } from './stream-observable.js';
import { StreamTally } from './stream-tally.js';
import { buildUsageView } from './usage-view.js';

/**
 * Streamed chat completions (`stream: true`), on the same route as the non-streamed path
 * (preset, BYOK keys, routing plan, one usage event). An attempt counts as answered once its
 * provider stream yields a first event, so routing moves to the next attempt after any
 * provider-side failure before it (nothing has reached the client yet) and never after.
 * Each `chat.completion.chunk` is emitted already serialised, so the gateway relays the text
 * as the SSE `data:` line without a JSON round trip (ADR 0016). The Observable fails with a
 * GatewayError: before the first chunk the gateway still answers with the error envelope;
 * after it, with an SSE error event.
 */
@Injectable()
export class ChatStreamService {
  constructor(
    private readonly calls: ModelCalls,
    private readonly preparation: ChatPreparation,
    private readonly accounting: GenerationAccounting,
    private readonly cancellations: StreamCancellations,
  ) {}

  stream(request: ChatStreamRequest): Observable<string> {
    return observeStream(this.cancellations, request.streamId, (signal, emit) => this.run(request, signal, emit));
  }

  private async run(request: ChatStreamRequest, signal: AbortSignal, emit: (chunk: string) => void): Promise<void> {
    const { principal } = request;
    const prepared = await this.preparation.prepare(request, signal);
    const { body, sessionId, plan, base } = prepared;
    const debug = debugOptions(body);
    let upstreamBody: Record<string, unknown> | undefined;
    if (debug?.echoUpstreamBody) base.onUpstreamBody = (sent) => (upstreamBody = sent);

    const { result: opened, attempt, tracker } = await this.calls.open(prepared, 'chat', { timings: debug?.timings });

    const head: ChunkHead = { id: newGenerationId(), created: Math.floor(Date.now() / 1000), model: attempt.modelId, provider: attempt.endpoint.provider.name };
    const provenance: ChunkProvenance = { systemFingerprint: null, serviceTier: null };
    const serviceMetadata = request.serviceMetadata ? this.accounting.metadata(plan, tracker) : undefined;
    const tally = new StreamTally();
    let firstToken = false;
    const settle = async (status: 'succeeded' | 'failed') => {
      const usage = tally.usage(body.messages);
      const charge = await this.accounting.settle({ generationId: head.id, principal, attempt, tracker, usage, status, sessionId });
      return { usage, charge };
    };
    // OpenRouter's order: the echoed upstream body comes first, in a chunk without choices.
    if (upstreamBody) emit(JSON.stringify(debugChunkView(head, provenance, { echo_upstream_body: upstreamBody })));
    try {
      for (let next = opened.first; !next.done; next = await opened.events.next()) {
        const event = next.value;
        tally.add(event);
        if (event.type !== 'chunk') continue;
        if (debug && !firstToken && carriesTokens(event)) {
          firstToken = true;
          debug.timings.mark('first_token_received');
        }
        if (event.systemFingerprint) provenance.systemFingerprint = event.systemFingerprint;
        if (event.serviceTier) provenance.serviceTier = event.serviceTier;
        const view = toChunkView(head, provenance, event);
        // Routing metadata rides on the first chunk, when the caller opted in (spec §2.6).
        if (serviceMetadata && tally.chunks === 1) view.service_metadata = serviceMetadata;
        emit(JSON.stringify(view));
      }
    } catch (error) {
      // Tokens were generated before the failure: they are recorded (and billed) as a failed generation.
      // The stream ends with the provider's error whether or not the event could be stored (then it is retried).
      if (tally.chunks > 0) await settle('failed').catch(() => undefined);
      throw error;
    }
    if (debug) {
      debug.timings.mark('upstream_body_ended');
      emit(JSON.stringify(debugChunkView(head, provenance, { timings: debug.timings.entries })));
    }
    // The last chunks (usage, then the end) wait for the usage event's PubAck (ADR 0030).
    const { usage, charge } = await settle('succeeded');
    if (wantsUsageChunk(body)) emit(JSON.stringify(usageChunkView(head, provenance, buildUsageView(usage, charge.upstream, charge.isByok, charge.charged))));
  }
}

/**
 * The request's `debug` object (streaming only, spec §4.6): any `debug` object turns on
 * `timings`; `echo_upstream_body: true` also echoes the body sent to the provider.
 */
function debugOptions(body: Record<string, unknown>): { echoUpstreamBody: boolean; timings: DebugTimings } | undefined {
  const debug = body.debug;
  if (debug === null || typeof debug !== 'object' || Array.isArray(debug)) return undefined;
  return { echoUpstreamBody: (debug as { echo_upstream_body?: unknown }).echo_upstream_body === true, timings: new DebugTimings() };
}

/** True for the first chunk that carries generated text, reasoning or a tool call. */
function carriesTokens(event: Extract<StreamEvent, { type: 'chunk' }>): boolean {
  return event.choices.some(({ delta }) => Boolean(delta.content || delta.reasoning || delta.refusal || delta.tool_calls));
}

function wantsUsageChunk(body: Record<string, unknown>): boolean {
  const options = body.stream_options as { include_usage?: unknown } | null | undefined;
  return options?.include_usage === true;
}
