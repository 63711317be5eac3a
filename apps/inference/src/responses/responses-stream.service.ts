import { Injectable } from '@nestjs/common';
import type { ChatStreamRequest } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { ModelCalls } from '../shared-pipeline/model-calls.service.js';
import type { ServedStream } from '@gw/messaging';
import { ALREADY_FRAMED, ServedStreams } from '../shared-pipeline/served-stream.js';
import { StreamTally } from '../shared-pipeline/stream-tally.js';
import { UpstreamFailure } from '../upstream/upstream-failure.js';
import { runServerToolLoop } from '../server-tools/server-tool-loop.js';
import { settleLoopStep } from '../server-tools/settle-loop-step.js';
import { extractServerTools } from '../server-tools/server-tool-request.js';
import { ServerToolRunner, sourcesOf } from '../server-tools/server-tool-runner.service.js';
import { drainStep } from '../server-tools/stream-step.js';
import { PluginPipeline } from '../plugins/plugin-pipeline.service.js';
import { LoopStreamText, rewriteChunk, streamTransforms, withLoopText } from '../plugins/plugin-stream.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { sumUsage } from './response-steps.js';
import { webSearchCallItem } from './server-tool-items.js';
import { ResponsesEventWriter } from './responses-event-writer.js';
import { headOf, ResponsesPreparation, stepUsage } from './responses-preparation.js';
import { toResponsesUsage } from './responses-view.js';
import { metadataField } from '../routing/metadata-field.js';
import { ContentLog } from '../content/content-log.service.js';
import { streamedContent } from '../content/generation-content.js';

/**
 * `POST /v1/responses` with `stream: true`: the same preparation and model call as the
 * non-streamed path, the provider's stream (native Responses or chat) turned into OpenAI's
 * semantic events by ResponsesEventWriter, each emitted already framed as SSE.
 * Nothing is emitted before the provider's first event, so a refusal up to then fails the
 * stream and the gateway answers with the error envelope. After it, a failure is told
 * in-band: `response.failed` with the canonical error type, and the stream ends (the tokens
 * produced so far are recorded as a failed generation, as on chat).
 */
@Injectable()
export class ResponsesStreamService {
  constructor(
    private readonly preparation: ResponsesPreparation,
    private readonly calls: ModelCalls,
    private readonly accounting: GenerationAccounting,
    private readonly streams: ServedStreams,
    private readonly serverTools: ServerToolRunner,
    private readonly plugins: PluginPipeline,
    private readonly contentLog: ContentLog,
  ) {}

  stream(request: ChatStreamRequest): ServedStream {
    return this.streams.serve(request, ALREADY_FRAMED, (signal, emit) => this.run(request, signal, emit));
  }

  private async run(request: ChatStreamRequest, signal: AbortSignal, emit: (frame: string) => void): Promise<void> {
    const { principal } = request;
    const response = await this.preparation.prepare(request, signal);
    const { prepared, options } = response;
    const tools = extractServerTools(prepared.body);
    prepared.body = tools.body;
    if (tools.plan) {
      // Server tools: every model call streams into the same response; each server
      // call the gateway runs is a web_search_call item between them.
      let writer: ResponsesEventWriter | undefined;
      // Plugins on the loop's text: markers stripped as it streams, citations over all of it at the end.
      const text = new LoopStreamText(prepared.plugins);
      try {
        const steps = await runServerToolLoop({
          body: prepared.body,
          plan: tools.plan,
          runner: this.serverTools,
          signal,
          call: async (body) => {
            const { result: opened, attempt, tracker } = await this.calls.open(prepared, 'responses', { body });
            if (!writer) {
              writer = new ResponsesEventWriter(headOf(response, attempt.modelId), options, emit);
              writer.start(request.serviceMetadata ? { [metadataField(request)]: this.accounting.metadata(prepared.plan, tracker) } : {});
            }
            const completion = await drainStep(opened, body, (event) => writer!.add(withLoopText(event, text)));
            return { completion, attempt, tracker };
          },
          settle: async (step, usage, toolCost, found) => {
            const owner = {
              accounting: this.accounting,
              plugins: this.plugins,
              prepared,
              principal,
              generationId: newGenerationId(),
              streamed: true,
            };
            const { charge, usage: charged } = await settleLoopStep(owner, step, usage, toolCost, found);
            return { charge, extra: charged };
          },
          onExecuted: (calls) => {
            for (const call of calls) writer!.serverToolCall(webSearchCallItem(call));
          },
        });
        const choice = steps.at(-1)!.completion.choices[0];
        if (choice) {
          const delta: Record<string, unknown> = {};
          if (choice.message.tool_calls) delta.tool_calls = choice.message.tool_calls;
          const end = text.finish(sourcesOf(steps.flatMap((step) => step.executed)), choice.message.annotations);
          if (end.text) delta.content = end.text;
          if (end.annotations) delta.annotations = end.annotations;
          writer!.add({
            type: 'chunk',
            choices: [{ index: 0, delta, finish_reason: choice.finish_reason, native_finish_reason: choice.native_finish_reason }],
          });
        }
        // Each call's usage as recorded (the plugins' searches on the first), and the plugins' own model calls.
        const usages = steps.map((step) => stepUsage(step.extra, step.charge));
        writer!.finish(sumUsage([...usages, ...(prepared.plugins?.extraUsage ?? []).map(toResponsesUsage)]));
      } catch (error) {
        if (!writer?.started || signal.aborted) throw error;
        writer.fail(toGatewayError(error));
      }
      return;
    }
    let upstreamBody: Record<string, unknown> | undefined;
    if (echoesUpstreamBody(prepared.body)) prepared.base.onUpstreamBody = (sent) => (upstreamBody = sent);

    const { result: opened, attempt, tracker } = await this.calls.open(prepared, 'responses');
    const writer = new ResponsesEventWriter(headOf(response, attempt.modelId), options, emit);
    const extras: Record<string, unknown> = {};
    if (request.serviceMetadata)
      extras[metadataField(request)] = this.plugins.decorateMetadata(prepared.plugins, this.accounting.metadata(prepared.plan, tracker));
    writer.start(extras, upstreamBody ? { debug: { echo_upstream_body: upstreamBody } } : {});

    const tally = new StreamTally();
    const kept = (tally.kept = await this.contentLog.keeper(principal));
    const transformOf = streamTransforms(this.plugins, prepared.plugins);
    const settle = async (status: 'succeeded' | 'failed') => {
      const charged = this.plugins.takeToolCharges(prepared.plugins, tally.usage(prepared.body));
      const charge = await this.accounting.settle({
        generationId: newGenerationId(),
        principal,
        attempt,
        tracker,
        usage: charged.usage,
        status,
        sessionId: prepared.sessionId,
        request: prepared.facts,
        toolCost: charged.toolCost,
        streamed: true,
        finish: tally.finish(),
        content: kept && streamedContent(prepared.body.messages, kept),
      });
      const usage = stepUsage(charged.usage, charge);
      const extra = prepared.plugins?.extraUsage ?? [];
      return extra.length > 0 ? sumUsage([usage, ...extra.map(toResponsesUsage)]) : usage;
    };
    try {
      for (let next = opened.first; !next.done; next = await opened.events.next()) {
        tally.add(next.value);
        // Plugins that rewrite streamed text or cite.
        writer.add(next.value.type === 'chunk' ? rewriteChunk(next.value, transformOf) : next.value);
      }
    } catch (error) {
      if (signal.aborted) throw error; // the client left: nobody to tell
      // Tokens were generated before the failure: they are recorded (and billed) as a failed generation.
      const usage = tally.chunks > 0 ? await settle('failed').catch(() => null) : null;
      writer.fail(toGatewayError(error), usage);
      return;
    }
    // response.completed waits for the usage event's PubAck.
    let usage: Awaited<ReturnType<typeof settle>>;
    try {
      usage = await settle('succeeded');
    } catch (error) {
      writer.fail(toGatewayError(error), null);
      return;
    }
    writer.finish(usage);
  }
}

function echoesUpstreamBody(body: Record<string, unknown>): boolean {
  const debug = body.debug as { echo_upstream_body?: unknown } | null | undefined;
  return debug?.echo_upstream_body === true;
}

function toGatewayError(error: unknown): GatewayError {
  if (error instanceof UpstreamFailure) return error.gatewayError;
  if (error instanceof GatewayError) return error;
  return new GatewayError(500, 'Internal server error', { errorType: 'server' });
}
