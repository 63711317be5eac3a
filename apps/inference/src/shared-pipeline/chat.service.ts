import { finishOfCompletion } from '../usage/generation-finish.js';
import { chatContent } from '../content/generation-content.js';
import { Injectable } from '@nestjs/common';
import type { ChatCompletionView, ChatCreateRequest } from '@gw/contracts';
import { runServerToolLoop } from '../server-tools/server-tool-loop.js';
import { settleLoopStep } from '../server-tools/settle-loop-step.js';
import { extractServerTools, type ServerToolsPlan } from '../server-tools/server-tool-request.js';
import { ServerToolRunner } from '../server-tools/server-tool-runner.service.js';
import { sumUsageViews } from '../server-tools/usage-sum.js';
import { PluginPipeline } from '../plugins/plugin-pipeline.service.js';
import type { Charge } from '../pricing/charge.js';
import type { NormalizedCompletion, NormalizedUsage } from '../providers/provider-adapter.js';
import type { AttemptTracker } from '../routing/attempt-tracker.js';
import type { RouteAttempt } from '../routing/route-types.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import type { PreparedChat } from './chat-preparation.service.js';
import { buildUsageView } from './usage-view.js';
import { buildChatCompletion } from './chat-completion.builder.js';
import { ChatPreparation } from './chat-preparation.service.js';
import { newGenerationId } from './generation-ids.js';
import { ModelCalls } from './model-calls.service.js';
import { CallCancellations } from './call-cancellations.js';
import { SpendHolds } from '../billing/spend-holds.service.js';
import { metadataField } from '../routing/metadata-field.js';

/**
 * One non-streaming chat completion: spend check, preset, the workspace's BYOK keys, a
 * routing plan (routing/), the attempts in order (ModelCalls), then the price and one usage event stored
 * in JetStream before the answer is returned (GenerationAccounting), and routing metadata when the caller opted in.
 * Server tools make it a loop of calls; plugins run before the first and on the answer.
 */
@Injectable()
export class ChatService {
  constructor(
    private readonly calls: ModelCalls,
    private readonly preparation: ChatPreparation,
    private readonly accounting: GenerationAccounting,
    private readonly cancellations: CallCancellations,
    private readonly serverTools: ServerToolRunner,
    private readonly plugins: PluginPipeline,
    private readonly holds: SpendHolds,
  ) {}

  /** The client may leave before the answer: the gateway then cancels by request id, and the provider call is aborted. */
  async create(request: ChatCreateRequest): Promise<ChatCompletionView> {
    return this.holds.around(request.principal, () =>
      this.cancellations.around(request.requestId, (signal) => this.complete(request, signal)),
    );
  }

  private async complete(request: ChatCreateRequest, signal?: AbortSignal): Promise<ChatCompletionView> {
    const prepared = await this.preparation.prepare(request, signal);
    const tools = extractServerTools(prepared.body);
    prepared.body = tools.body;
    const toolsPlan = tools.plan;
    // Every model call of the answer (a retry of the alignment plugin makes more), each its own generation.
    const steps: Answered[] = [];
    const answer = async (): Promise<NormalizedCompletion> => {
      const made = toolsPlan ? await this.loop(request, prepared, toolsPlan, signal) : [await this.single(request, prepared)];
      steps.push(...made);
      return made.at(-1)!.completion;
    };
    const messages = (prepared.body.messages as Array<Record<string, unknown>> | undefined) ?? [];
    const finished = await this.plugins.finishAnswer(prepared.plugins, await answer(), messages, answer);
    const last = steps.at(-1)!;
    const view = buildChatCompletion({
      id: last.id,
      modelId: last.attempt.modelId,
      endpoint: last.attempt.endpoint,
      completion: finished.completion,
      cost: last.charge.upstream,
      isByok: last.charge.isByok,
      charged: last.charge.charged,
      serviceMetadata: request.serviceMetadata
        ? this.plugins.decorateMetadata(prepared.plugins, this.accounting.metadata(prepared.plan, last.tracker))
        : undefined,
      metadataField: metadataField(request),
    });
    const views = steps.map((step) => buildUsageView(step.usage, step.charge.upstream, step.charge.isByok, step.charge.charged));
    // The answer's usage: every call's, server tool counts included, the plugins' own calls too.
    const usages = [...views, ...(prepared.plugins?.extraUsage ?? [])];
    // One call (the usual answer): its view, built just above, is the sum; no deep copy (as the stream path does).
    view.usage = usages.length > 1 ? sumUsageViews(usages) : usages[0]!;
    if (finished.alignment) view.alignment = finished.alignment;
    return view;
  }

  /** One model call, priced and recorded (the plugins' searches and fetches charged on the answer's first). */
  private async single(request: ChatCreateRequest, prepared: PreparedChat): Promise<Answered> {
    const { result: completion, attempt, tracker } = await this.calls.complete(prepared, 'chat');
    const id = newGenerationId();
    const { usage, toolCost } = this.plugins.takeToolCharges(prepared.plugins, completion.usage);
    completion.usage = usage;
    const charge = await this.accounting.settle({
      generationId: id,
      principal: request.principal,
      attempt,
      tracker,
      usage,
      status: 'succeeded',
      sessionId: prepared.sessionId,
      request: prepared.facts,
      toolCost,
      finish: finishOfCompletion(completion),
      content: () => chatContent(prepared.body.messages, completion),
    });
    return { id, completion, attempt, tracker, usage, charge };
  }

  /** Server tools: the loop's model calls, each its own generation; the answer is the last. */
  private async loop(
    request: ChatCreateRequest,
    prepared: PreparedChat,
    toolsPlan: ServerToolsPlan,
    signal?: AbortSignal,
  ): Promise<Answered[]> {
    const { principal } = request;
    const steps = await runServerToolLoop({
      body: prepared.body,
      plan: toolsPlan,
      runner: this.serverTools,
      signal,
      call: async (body) => {
        const { result: completion, attempt, tracker } = await this.calls.complete(prepared, 'chat', body);
        return { completion, attempt, tracker };
      },
      settle: async (step, usage, toolCost, found) => {
        const id = newGenerationId();
        const owner = { accounting: this.accounting, plugins: this.plugins, prepared, principal, generationId: id, streamed: false };
        const settled = await settleLoopStep(owner, step, usage, toolCost, found);
        return { charge: settled.charge, extra: { id, usage: settled.usage } };
      },
    });
    return steps.map((step) => ({
      id: step.extra.id,
      completion: step.completion,
      attempt: step.attempt,
      tracker: step.tracker,
      usage: step.extra.usage,
      charge: step.charge,
    }));
  }
}

interface Answered {
  id: string;
  completion: NormalizedCompletion;
  attempt: RouteAttempt;
  tracker: AttemptTracker;
  usage: NormalizedUsage;
  charge: Charge;
}
