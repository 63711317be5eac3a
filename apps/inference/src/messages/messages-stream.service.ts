import { anthropicFinishReason } from '../providers/anthropic/anthropic-response.js';
import type { GenerationFinish } from '../usage/generation-finish.js';
import { Injectable } from '@nestjs/common';
import type { ChatStreamRequest, ServiceMetadataView } from '@gw/contracts';
import { ChatPreparation, type PreparedChat } from '../shared-pipeline/chat-preparation.service.js';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { ModelCalls } from '../shared-pipeline/model-calls.service.js';
import { openFirstEvent, type OpenedStream } from '../shared-pipeline/open-stream.js';
import type { ServedStream } from '@gw/messaging';
import { ALREADY_FRAMED, ServedStreams } from '../shared-pipeline/served-stream.js';
import { StreamTally } from '../shared-pipeline/stream-tally.js';
import { estimatePromptTokens } from '../pricing/token-estimate.js';
import type { Charge } from '../pricing/charge.js';
import { AdapterRegistry } from '../providers/adapter-registry.js';
import { AnthropicUsageTally, type AnthropicStreamData } from '../providers/anthropic/anthropic-stream.js';
import { AnthropicAdapter } from '../providers/anthropic/anthropic.adapter.js';
import type { ChatCallContext, NormalizedUsage, StreamEvent } from '../providers/provider-adapter.js';
import type { RouteAttempt } from '../routing/route-types.js';
import type { AttemptTracker } from '../routing/attempt-tracker.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { chatBodyFromMessages } from './chat-body-from-messages.js';
import { ChunksToMessageEvents, frameOf, type MessageEvent } from './message-events.js';
import { messageUsageView } from './message-from-completion.js';
import { nativeBodyFor, nativeWarnings, translationWarnings, type MessagesRequestForms } from './messages-attempt.js';
import { nativeBetas } from './native-body.js';
import { metadataField } from '../routing/metadata-field.js';
import { ContentLog } from '../content/content-log.service.js';
import { streamedContent } from '../content/generation-content.js';
import type { KeptText } from '../content/kept-text.js';

/** The opened upstream stream of the answering attempt, in its own format. */
type OpenedSource =
  ({ kind: 'native' } & OpenedStream<AnthropicStreamData>) | ({ kind: 'chat'; warnings: string[] } & OpenedStream<StreamEvent>);

interface StreamRun {
  id: string;
  request: ChatStreamRequest;
  prepared: PreparedChat;
  attempt: RouteAttempt;
  tracker: AttemptTracker;
  serviceMetadata?: ServiceMetadataView;
  /** What the answering endpoint could not take and was left out (message_start's `gateway_warnings`). */
  warnings: string[];
  emit: (event: MessageEvent) => void;
  /** The answer's text as it streams, for a workspace that logs content. */
  kept?: KeptText;
}

/**
 * `POST /v1/messages` with `stream: true`: the chat pipeline's preparation and routing, then
 * Anthropic's SSE events, one framed event per packet. An Anthropic-format endpoint's events
 * are relayed as they come (message_start gets the generation id and the public model); an
 * OpenAI-format endpoint's chunks become content-block events (message-events.ts). The last
 * message_delta is held until the stream ends so its usage carries the price, as on chat.
 */
@Injectable()
export class MessagesStreamService {
  constructor(
    private readonly adapters: AdapterRegistry,
    private readonly anthropic: AnthropicAdapter,
    private readonly calls: ModelCalls,
    private readonly preparation: ChatPreparation,
    private readonly accounting: GenerationAccounting,
    private readonly streams: ServedStreams,
    private readonly contentLog: ContentLog,
  ) {}

  stream(request: ChatStreamRequest): ServedStream {
    return this.streams.serve(request, ALREADY_FRAMED, (signal, emit) => this.run(request, signal, emit));
  }

  private async run(request: ChatStreamRequest, signal: AbortSignal, emitFrame: (frame: string) => void): Promise<void> {
    const forms: MessagesRequestForms = { request: request.body, chat: chatBodyFromMessages(request.body), betas: request.anthropicBeta };
    const prepared = await this.preparation.prepare({ ...request, body: forms.chat }, signal);
    const {
      result: opened,
      attempt,
      tracker,
    } = await this.calls.run(prepared, (current, context) => this.open(forms, current, prepared, context));
    const run: StreamRun = {
      id: newGenerationId(),
      request,
      prepared,
      attempt,
      tracker,
      serviceMetadata: request.serviceMetadata ? this.accounting.metadata(prepared.plan, tracker) : undefined,
      warnings: opened.kind === 'chat' ? opened.warnings : nativeWarnings(forms),
      emit: (event) => emitFrame(frameOf(event)),
      kept: await this.contentLog.keeper(request.principal),
    };
    if (opened.kind === 'native') await this.relayNative(run, opened);
    else await this.translateChunks(run, opened);
  }

  private open(
    forms: MessagesRequestForms,
    attempt: RouteAttempt,
    prepared: PreparedChat,
    context: ChatCallContext,
  ): Promise<OpenedSource> {
    const { endpoint } = attempt;
    if (endpoint.provider.format === 'anthropic') {
      return openFirstEvent(
        endpoint.provider.id,
        () =>
          this.anthropic.streamNative(
            endpoint,
            nativeBodyFor(forms, attempt, prepared, true),
            context,
            nativeBetas(forms.request, forms.betas),
          ),
        (first) => first.type === 'message_start',
      ).then((opened) => ({ kind: 'native' as const, ...opened }));
    }
    const warnings = translationWarnings(forms, attempt);
    return openFirstEvent(
      endpoint.provider.id,
      () => this.adapters.for(endpoint.provider.format).stream(endpoint, prepared.body, context),
      (first) => first.type === 'chunk',
    ).then((opened) => ({ kind: 'chat' as const, warnings, ...opened }));
  }

  /** An Anthropic-format endpoint's events, as they come. */
  private async relayNative(run: StreamRun, opened: OpenedStream<AnthropicStreamData>): Promise<void> {
    const tally = new AnthropicUsageTally();
    let held: MessageEvent | undefined;
    let relayed = false;
    const ending: GenerationFinish = {};
    const usage = (): NormalizedUsage => tally.usage() ?? estimated(run);
    try {
      for (let next = opened.first; !next.done; next = await opened.events.next()) {
        const event = next.value as MessageEvent;
        tally.add(event);
        if (run.kept) keepNative(run.kept, event);
        if (event.type === 'message_start') {
          const upstreamId = (event.message as { id?: unknown } | undefined)?.id;
          if (typeof upstreamId === 'string') ending.upstreamId = upstreamId;
          run.emit({ ...event, message: this.startMessage(run, (event.message as Record<string, unknown> | undefined) ?? {}) });
        } else if (event.type === 'message_delta') {
          held = event;
        } else if (event.type === 'message_stop') {
          const stop = (held?.delta as { stop_reason?: string | null } | undefined)?.stop_reason ?? null;
          const charge = await this.settle(run, usage(), 'succeeded', {
            ...ending,
            finishReason: anthropicFinishReason(stop),
            nativeFinishReason: stop,
          });
          const delta = held ?? { type: 'message_delta', delta: { stop_reason: null, stop_sequence: null }, usage: {} };
          run.emit({
            ...delta,
            usage: {
              ...(delta.usage as Record<string, unknown>),
              ...messageUsageView(usage(), {}, charge.upstream, charge.isByok, charge.charged),
            },
          });
          run.emit(event);
        } else {
          run.emit(event);
        }
        relayed = true;
      }
    } catch (error) {
      if (relayed) await this.settle(run, usage(), 'failed').catch(() => undefined);
      throw error;
    }
  }

  /** An OpenAI-format endpoint's chunks as Messages events. */
  private async translateChunks(run: StreamRun, opened: OpenedStream<StreamEvent>): Promise<void> {
    const tally = new StreamTally();
    tally.kept = run.kept;
    const blocks = new ChunksToMessageEvents();
    const promptEstimate = estimatePromptTokens(run.prepared.body.messages);
    run.emit({
      type: 'message_start',
      message: this.startMessage(run, { usage: { input_tokens: promptEstimate, output_tokens: 0 } }),
    });
    try {
      for (let next = opened.first; !next.done; next = await opened.events.next()) {
        const event = next.value;
        tally.add(event);
        if (event.type === 'chunk') for (const out of blocks.add(event)) run.emit(out);
      }
    } catch (error) {
      await this.settle(run, tally.usage(run.prepared.body), 'failed').catch(() => undefined);
      throw error;
    }
    const { events, stopReason } = blocks.finish();
    for (const out of events) run.emit(out);
    const usage = tally.usage(run.prepared.body);
    const charge = await this.settle(run, usage, 'succeeded', tally.finish());
    run.emit({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: messageUsageView(usage, {}, charge.upstream, charge.isByok, charge.charged),
    });
    run.emit({ type: 'message_stop' });
  }

  /** message_start's message: the provider's, with the generation id, the public model and the gateway's fields. */
  private startMessage(run: StreamRun, upstream: Record<string, unknown>): Record<string, unknown> {
    const message: Record<string, unknown> = {
      type: 'message',
      role: 'assistant',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      container: null,
      ...upstream,
      id: run.id,
      model: run.attempt.modelId,
      provider: run.attempt.endpoint.provider.name,
    };
    if (run.serviceMetadata) message[metadataField(run.request)] = run.serviceMetadata;
    if (run.warnings.length > 0) message.gateway_warnings = run.warnings;
    return message;
  }

  private settle(run: StreamRun, usage: NormalizedUsage, status: 'succeeded' | 'failed', finish?: GenerationFinish): Promise<Charge> {
    return this.accounting.settle({
      generationId: run.id,
      principal: run.request.principal,
      attempt: run.attempt,
      tracker: run.tracker,
      usage,
      status,
      sessionId: run.prepared.sessionId,
      request: run.prepared.facts,
      streamed: true,
      finish,
      content: run.kept && streamedContent(run.prepared.body.messages, run.kept),
    });
  }
}

/** The text and thinking of an Anthropic stream's content blocks (as the stored completion and reasoning). */
function keepNative(kept: KeptText, event: MessageEvent): void {
  if (event.type === 'content_block_start') {
    const block = event.content_block as { type?: unknown; text?: unknown; thinking?: unknown } | undefined;
    if (block?.type === 'text') kept.add(block.text);
    else if (block?.type === 'thinking') kept.add(undefined, block.thinking);
  } else if (event.type === 'content_block_delta') {
    const delta = event.delta as { type?: unknown; text?: unknown; thinking?: unknown } | undefined;
    if (delta?.type === 'text_delta') kept.add(delta.text);
    else if (delta?.type === 'thinking_delta') kept.add(undefined, delta.thinking);
  }
}

function estimated(run: StreamRun): NormalizedUsage {
  return {
    promptTokens: estimatePromptTokens(run.prepared.body.messages),
    completionTokens: 0,
    cachedTokens: 0,
    reasoningTokens: 0,
    estimated: true,
  };
}
