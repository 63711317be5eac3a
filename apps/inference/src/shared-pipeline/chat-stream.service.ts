import { ContentLog } from '../content/content-log.service.js';
import { streamedContent } from '../content/generation-content.js';
import { Injectable } from '@nestjs/common';
import type { ChatCompletionChunkView, ChatStreamRequest } from '@gw/contracts';
import type { StreamEvent } from '../providers/provider-adapter.js';
import { DebugTimings } from '../routing/routing-metadata.js';
import { runServerToolLoop } from '../server-tools/server-tool-loop.js';
import { settleLoopStep } from '../server-tools/settle-loop-step.js';
import { extractServerTools, type ServerToolsPlan } from '../server-tools/server-tool-request.js';
import { ServerToolRunner, sourcesOf } from '../server-tools/server-tool-runner.service.js';
import { drainStep } from '../server-tools/stream-step.js';
import { sumUsageViews } from '../server-tools/usage-sum.js';
import { PluginPipeline } from '../plugins/plugin-pipeline.service.js';
import { LoopStreamText, rewriteChunk, streamTransforms, withLoopText } from '../plugins/plugin-stream.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import type { PreparedChat } from './chat-preparation.service.js';
import { debugChunkView, toChunkView, usageChunkView, type ChunkHead, type ChunkProvenance } from './chat-chunk.mapper.js';
import { ChatPreparation } from './chat-preparation.service.js';
import { newGenerationId } from './generation-ids.js';
import { ModelCalls } from './model-calls.service.js';
import type { ServedStream } from '@gw/messaging';
import { SSE_DATA_FRAME, ServedStreams } from './served-stream.js';
import { StreamTally } from './stream-tally.js';
import { buildUsageView } from './usage-view.js';
import { metadataField } from '../routing/metadata-field.js';

/**
 * Streamed chat completions (`stream: true`), on the same route as the non-streamed path
 * (preset, BYOK keys, routing plan, one usage event). An attempt counts as answered once its
 * provider stream yields a first event, so routing moves to the next attempt after any
 * provider-side failure before it (nothing has reached the client yet) and never after.
 * Each `chat.completion.chunk` is emitted already serialised, so the gateway relays the text
 * as the SSE `data:` line without a JSON round trip. The stream fails with a
 * GatewayError: before the first chunk the gateway still answers with the error envelope;
 * after it, with an SSE error event.
 */
@Injectable()
export class ChatStreamService {
  constructor(
    private readonly calls: ModelCalls,
    private readonly preparation: ChatPreparation,
    private readonly accounting: GenerationAccounting,
    private readonly streams: ServedStreams,
    private readonly serverTools: ServerToolRunner,
    private readonly plugins: PluginPipeline,
    private readonly contentLog: ContentLog,
  ) {}

  stream(request: ChatStreamRequest): ServedStream {
    return this.streams.serve(request, SSE_DATA_FRAME, (signal, emit) => this.run(request, signal, emit));
  }

  private async run(request: ChatStreamRequest, signal: AbortSignal, emit: (chunk: string) => void): Promise<void> {
    const { principal } = request;
    const prepared = await this.preparation.prepare(request, signal, { stream: true });
    const tools = extractServerTools(prepared.body);
    prepared.body = tools.body;
    if (tools.plan) return this.runWithServerTools(request, prepared, tools.plan, signal, emit);
    const { body, sessionId, plan, base } = prepared;
    const debug = debugOptions(body);
    let upstreamBody: Record<string, unknown> | undefined;
    if (debug?.echoUpstreamBody) base.onUpstreamBody = (sent) => (upstreamBody = sent);

    const { result: opened, attempt, tracker } = await this.calls.open(prepared, 'chat', { timings: debug?.timings });

    const head: ChunkHead = {
      id: newGenerationId(),
      created: Math.floor(Date.now() / 1000),
      model: attempt.modelId,
      provider: attempt.endpoint.provider.name,
    };
    const provenance: ChunkProvenance = { systemFingerprint: null, serviceTier: null };
    const serviceMetadata = request.serviceMetadata
      ? this.plugins.decorateMetadata(prepared.plugins, this.accounting.metadata(plan, tracker))
      : undefined;
    const tally = new StreamTally();
    const kept = (tally.kept = await this.contentLog.keeper(principal));
    // Plugins that rewrite streamed text or cite, per choice.
    const transformOf = streamTransforms(this.plugins, prepared.plugins);
    let firstToken = false;
    const settle = async (status: 'succeeded' | 'failed') => {
      const charged = this.plugins.takeToolCharges(prepared.plugins, tally.usage(body));
      const charge = await this.accounting.settle({
        generationId: head.id,
        principal,
        attempt,
        tracker,
        usage: charged.usage,
        status,
        sessionId,
        request: prepared.facts,
        toolCost: charged.toolCost,
        streamed: true,
        finish: tally.finish(status === 'failed' && signal.aborted),
        content: kept && streamedContent(body.messages, kept),
      });
      return { usage: charged.usage, charge };
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
        const view = toChunkView(head, provenance, rewriteChunk(event, transformOf));
        // Routing metadata rides on the first chunk, when the caller opted in (spec §2.6).
        if (serviceMetadata && tally.chunks === 1) view[metadataField(request)] = serviceMetadata;
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
    // The last chunks (usage, then the end) wait for the usage event's PubAck.
    const { usage, charge } = await settle('succeeded');
    const views = [buildUsageView(usage, charge.upstream, charge.isByok, charge.charged), ...(prepared.plugins?.extraUsage ?? [])];
    if (wantsUsageChunk(body)) emit(JSON.stringify(usageChunkView(head, provenance, views.length > 1 ? sumUsageViews(views) : views[0]!)));
  }

  private runWithServerTools(
    request: ChatStreamRequest,
    prepared: PreparedChat,
    toolsPlan: ServerToolsPlan,
    signal: AbortSignal,
    emit: (chunk: string) => void,
  ): Promise<void> {
    return streamServerTools(
      { calls: this.calls, accounting: this.accounting, serverTools: this.serverTools, plugins: this.plugins },
      request,
      prepared,
      toolsPlan,
      signal,
      emit,
    );
  }
}

export interface ServerToolStreamDeps {
  calls: ModelCalls;
  accounting: GenerationAccounting;
  serverTools: ServerToolRunner;
  plugins?: PluginPipeline;
}

/**
 * Server tools on a streamed chat completion: each model call of the loop is
 * streamed and what the model writes reaches the client as it comes (one chunk id for the whole
 * answer); tool call fragments are held back, the server calls run, and the next call streams
 * on. The last chunk carries the client's own tool calls, the citations and the finish reason;
 * the usage chunk the sum of every call (each its own generation record). A failure mid-way
 * fails the stream like any other.
 */
async function streamServerTools(
  deps: ServerToolStreamDeps,
  request: ChatStreamRequest,
  prepared: PreparedChat,
  toolsPlan: ServerToolsPlan,
  signal: AbortSignal,
  emit: (chunk: string) => void,
): Promise<void> {
  const head: ChunkHead = { id: newGenerationId(), created: Math.floor(Date.now() / 1000), model: '', provider: '' };
  const provenance: ChunkProvenance = { systemFingerprint: null, serviceTier: null };
  let chunks = 0;
  let settled = 0;
  const text = new LoopStreamText(prepared.plugins);
  // `debug` (spec §4.6, streaming only) on a loop: per model call, its upstream body before its chunks and its timings after.
  const debug = debugOptions(prepared.body);
  let upstreamBody: Record<string, unknown> | undefined;
  if (debug?.echoUpstreamBody) prepared.base.onUpstreamBody = (sent) => (upstreamBody = sent);
  const steps = await runServerToolLoop({
    body: prepared.body,
    plan: toolsPlan,
    runner: deps.serverTools,
    signal,
    call: async (body, stepNumber) => {
      const timings = debug ? new DebugTimings() : undefined;
      upstreamBody = undefined;
      const { result: opened, attempt, tracker } = await deps.calls.open(prepared, 'chat', { body, timings });
      head.model = attempt.modelId;
      head.provider = attempt.endpoint.provider.name;
      if (upstreamBody) emit(JSON.stringify(debugChunkView(head, provenance, { step: stepNumber, echo_upstream_body: upstreamBody })));
      let firstToken = false;
      const completion = await drainStep(opened, body, (event) => {
        if (timings && !firstToken && carriesTokens(event)) {
          firstToken = true;
          timings.mark('first_token_received');
        }
        if (event.systemFingerprint) provenance.systemFingerprint = event.systemFingerprint;
        if (event.serviceTier) provenance.serviceTier = event.serviceTier;
        const view = toChunkView(head, provenance, withLoopText(event, text));
        if (request.serviceMetadata && chunks === 0)
          view[metadataField(request)] = deps.plugins
            ? deps.plugins.decorateMetadata(prepared.plugins, deps.accounting.metadata(prepared.plan, tracker))
            : deps.accounting.metadata(prepared.plan, tracker);
        chunks++;
        emit(JSON.stringify(view));
      });
      if (timings) {
        timings.mark('upstream_body_ended');
        emit(JSON.stringify(debugChunkView(head, provenance, { step: stepNumber, timings: timings.entries })));
      }
      return { completion, attempt, tracker };
    },
    // Each step the gateway ran tools in: a chunk without choices naming them (spec: "a comment or metadata per step").
    onExecuted: (executed) => {
      const view: ChatCompletionChunkView = {
        id: head.id,
        object: 'chat.completion.chunk',
        created: head.created,
        model: head.model,
        provider: head.provider,
        service_tier: provenance.serviceTier,
        choices: [],
      };
      view.server_tool_calls = executed.map((toolCall) => ({
        id: toolCall.callId,
        type: toolCall.kind,
        status: toolCall.ok ? 'completed' : 'failed',
        ...(toolCall.query !== undefined ? { query: toolCall.query } : {}),
        ...(toolCall.kind === 'web_fetch' ? { url: toolCall.page?.url ?? toolCall.url } : {}),
        ...(toolCall.results ? { results: toolCall.results.length } : {}),
        ...(toolCall.error ? { error: toolCall.error } : {}),
      }));
      emit(JSON.stringify(view));
    },
    settle: async (step, usage, toolCost, found) => {
      // The chunks' id is the first call's generation id; later calls have their own.
      const generationId = settled++ === 0 ? head.id : newGenerationId();
      const owner = {
        accounting: deps.accounting,
        plugins: deps.plugins,
        prepared,
        principal: request.principal,
        generationId,
        streamed: true,
      };
      const { charge, usage: charged } = await settleLoopStep(owner, step, usage, toolCost, found);
      return { charge, extra: charged };
    },
  });
  const last = steps.at(-1)!;
  const choice = last.completion.choices[0];
  if (choice) {
    const delta: Record<string, unknown> = {};
    if (choice.message.tool_calls) delta.tool_calls = choice.message.tool_calls;
    // Nothing streamed (the answer came whole in the end): it goes in this chunk.
    const whole = chunks === 0 ? text.piece(choice.message.content ?? '') : '';
    // Plugins: the held-back rest of the text, citations over all of it.
    const end = text.finish(sourcesOf(steps.flatMap((step) => step.executed)), choice.message.annotations);
    if (end.annotations) delta.annotations = end.annotations;
    if (chunks === 0) {
      delta.role = 'assistant';
      delta.content = whole + end.text;
    } else if (end.text) delta.content = end.text;
    emit(
      JSON.stringify(
        toChunkView(head, provenance, {
          type: 'chunk',
          choices: [{ index: 0, delta, finish_reason: choice.finish_reason, native_finish_reason: choice.native_finish_reason }],
        }),
      ),
    );
  }
  if (wantsUsageChunk(prepared.body)) {
    // Each call's usage as recorded (the plugins' searches on the first), and the plugins' own model calls.
    const views = steps.map((step) => buildUsageView(step.extra, step.charge.upstream, step.charge.isByok, step.charge.charged));
    emit(JSON.stringify(usageChunkView(head, provenance, sumUsageViews([...views, ...(prepared.plugins?.extraUsage ?? [])]))));
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
