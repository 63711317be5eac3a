import { finishOfCompletion } from '../usage/generation-finish.js';
import { chatContent } from '../content/generation-content.js';
import { Injectable } from '@nestjs/common';
import type { ChatCreateRequest, ResponsesOutputItemView, ResponsesResponseView, ResponsesUsageView } from '@gw/contracts';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { ModelCalls } from '../shared-pipeline/model-calls.service.js';
import { CallCancellations } from '../shared-pipeline/call-cancellations.js';
import { runServerToolLoop } from '../server-tools/server-tool-loop.js';
import { settleLoopStep } from '../server-tools/settle-loop-step.js';
import { extractServerTools } from '../server-tools/server-tool-request.js';
import { ServerToolRunner } from '../server-tools/server-tool-runner.service.js';
import { PluginPipeline } from '../plugins/plugin-pipeline.service.js';
import type { NormalizedCompletion } from '../providers/provider-adapter.js';
import type { AttemptTracker } from '../routing/attempt-tracker.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { loopOutputItems } from './server-tool-items.js';
import { runSteps, sumUsage } from './response-steps.js';
import { headOf, ResponsesPreparation, stepUsage } from './responses-preparation.js';
import { outputItemsOf, responseObject, statusOf, toResponsesUsage } from './responses-view.js';
import { SpendHolds } from '../billing/spend-holds.service.js';
import { metadataField } from '../routing/metadata-field.js';

/**
 * `POST /v1/responses` without streaming, on the chat pipeline: preparation
 * (ResponsesPreparation -> ChatPreparation), then each step's model call (ModelCalls, native
 * Responses where the catalog says so), each priced and recorded as one generation
 * (GenerationAccounting), then the spec §2.6 response object. A request that fails before an
 * answer is an error envelope with the status chat completions would give.
 */
@Injectable()
export class ResponsesService {
  constructor(
    private readonly preparation: ResponsesPreparation,
    private readonly calls: ModelCalls,
    private readonly accounting: GenerationAccounting,
    private readonly cancellations: CallCancellations,
    private readonly serverTools: ServerToolRunner,
    private readonly plugins: PluginPipeline,
    private readonly holds: SpendHolds,
  ) {}

  /** The client may leave before the answer: the gateway then cancels by request id, and the provider call is aborted. */
  async create(request: ChatCreateRequest): Promise<ResponsesResponseView> {
    return this.holds.around(request.principal, () =>
      this.cancellations.around(request.requestId, (signal) => this.respond(request, signal)),
    );
  }

  private async respond(request: ChatCreateRequest, signal?: AbortSignal): Promise<ResponsesResponseView> {
    const { principal } = request;
    const response = await this.preparation.prepare(request, signal);
    const { prepared, options } = response;
    const tools = extractServerTools(prepared.body);
    prepared.body = tools.body;
    const toolsPlan = tools.plan;
    // Each answer (a retry of the alignment plugin makes another): its output items and its calls' usage and last call.
    const answers: Array<{
      output: () => ResponsesOutputItemView[];
      usages: ResponsesUsageView[];
      completion: NormalizedCompletion;
      modelId: string;
      tracker: AttemptTracker;
    }> = [];
    const answer = async (): Promise<NormalizedCompletion> => {
      if (toolsPlan) {
        // Server tools: the loop's model calls, each its own generation.
        const steps = await runServerToolLoop({
          body: prepared.body,
          plan: toolsPlan,
          runner: this.serverTools,
          signal,
          call: async (body) => {
            const { result: completion, attempt, tracker } = await this.calls.complete(prepared, 'responses', body);
            return { completion, attempt, tracker };
          },
          settle: async (step, usage, toolCost, found) => {
            const owner = {
              accounting: this.accounting,
              plugins: this.plugins,
              prepared,
              principal,
              generationId: newGenerationId(),
              streamed: false,
            };
            const { charge, usage: charged } = await settleLoopStep(owner, step, usage, toolCost, found);
            return { charge, extra: stepUsage(charged, charge) };
          },
        });
        const last = steps.at(-1)!;
        answers.push({
          output: () => loopOutputItems(steps, options),
          usages: steps.map((step) => step.extra),
          completion: last.completion,
          modelId: last.attempt.modelId,
          tracker: last.tracker,
        });
        return last.completion;
      }
      const steps = await runSteps(prepared.body, async (body) => {
        const { result: completion, attempt, tracker } = await this.calls.complete(prepared, 'responses', body);
        const charged = this.plugins.takeToolCharges(prepared.plugins, completion.usage);
        completion.usage = charged.usage;
        const charge = await this.accounting.settle({
          generationId: newGenerationId(),
          principal,
          attempt,
          tracker,
          usage: charged.usage,
          status: 'succeeded',
          sessionId: prepared.sessionId,
          request: prepared.facts,
          toolCost: charged.toolCost,
          finish: finishOfCompletion(completion),
          content: () => chatContent(body.messages, completion),
        });
        return { completion, attempt, tracker, usage: stepUsage(completion.usage, charge) };
      });
      const last = steps.at(-1)!;
      answers.push({
        output: () => steps.flatMap((step) => outputItemsOf(step.completion, options)),
        usages: steps.map((step) => step.usage),
        completion: last.completion,
        modelId: last.attempt.modelId,
        tracker: last.tracker,
      });
      return last.completion;
    };
    const finished = await this.plugins.finishAnswer(
      prepared.plugins,
      await answer(),
      (prepared.body.messages as Array<Record<string, unknown>> | undefined) ?? [],
      answer,
    );
    const last = answers.at(-1)!;
    // Output items are built once the answer plugins ran: they rewrite the last completion in place.
    const output = last.output();
    const usages = [...answers.flatMap((entry) => entry.usages), ...(prepared.plugins?.extraUsage ?? []).map(toResponsesUsage)];
    const { status, incomplete_details } = statusOf(finished.completion.choices[0]?.finish_reason ?? null);
    const view = responseObject(headOf(response, last.modelId), {
      status,
      incomplete_details,
      error: null,
      output,
      // One step (the usual response): its usage, built for this answer, is the sum; no deep copy.
      usage: usages.length > 1 ? sumUsage(usages) : usages[0]!,
      serviceTier: finished.completion.serviceTier,
    });
    if (request.serviceMetadata)
      view[metadataField(request)] = this.plugins.decorateMetadata(prepared.plugins, this.accounting.metadata(prepared.plan, last.tracker));
    if (finished.alignment) view.alignment = finished.alignment;
    return view;
  }
}
