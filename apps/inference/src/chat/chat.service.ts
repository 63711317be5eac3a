import { Injectable } from '@nestjs/common';
import type { ChatCompletionView, ChatCreateRequest } from '@gw/contracts';
import { runServerToolLoop } from '../server-tools/server-tool-loop.js';
import { extractServerTools, type ServerToolsPlan } from '../server-tools/server-tool-request.js';
import { ServerToolRunner } from '../server-tools/server-tool-runner.service.js';
import { sumUsageViews } from '../server-tools/usage-sum.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import type { PreparedChat } from './chat-preparation.service.js';
import { buildUsageView } from './usage-view.js';
import { buildChatCompletion } from './chat-completion.builder.js';
import { ChatPreparation } from './chat-preparation.service.js';
import { newGenerationId } from './generation-ids.js';
import { ModelCalls } from './model-calls.service.js';
import { StreamCancellations } from './stream-cancellations.js';

/**
 * One non-streaming chat completion: spend check, preset, the workspace's BYOK keys, a
 * routing plan (routing/), the attempts in order (ModelCalls), then the price and one usage event stored
 * in JetStream before the answer is returned (GenerationAccounting, ADR 0030), and routing metadata when the caller opted in.
 */
@Injectable()
export class ChatService {
  constructor(
    private readonly calls: ModelCalls,
    private readonly preparation: ChatPreparation,
    private readonly accounting: GenerationAccounting,
    private readonly cancellations: StreamCancellations,
    private readonly serverTools: ServerToolRunner,
  ) {}

  /** The client may leave before the answer: the gateway then cancels by request id, and the provider call is aborted. */
  async create(request: ChatCreateRequest): Promise<ChatCompletionView> {
    if (!request.requestId) return this.complete(request);
    const controller = this.cancellations.register(request.requestId);
    try {
      return await this.complete(request, controller.signal);
    } finally {
      this.cancellations.release(request.requestId, controller);
    }
  }

  private async complete(request: ChatCreateRequest, signal?: AbortSignal): Promise<ChatCompletionView> {
    const { principal } = request;
    const prepared = await this.preparation.prepare(request, signal);
    const tools = extractServerTools(prepared.body);
    prepared.body = tools.body;
    if (tools.plan) return this.completeWithServerTools(request, prepared, tools.plan, signal);
    const { sessionId, plan } = prepared;
    const { result: completion, attempt, tracker } = await this.calls.complete(prepared, 'chat');

    const id = newGenerationId();
    const charge = await this.accounting.settle({ generationId: id, principal, attempt, tracker, usage: completion.usage, status: 'succeeded', sessionId });
    return buildChatCompletion({
      id,
      modelId: attempt.modelId,
      endpoint: attempt.endpoint,
      completion,
      cost: charge.upstream,
      isByok: charge.isByok,
      charged: charge.charged,
      serviceMetadata: request.serviceMetadata ? this.accounting.metadata(plan, tracker) : undefined,
    });
  }

  /** Server tools (ADR 0041): the loop's model calls, each its own generation; the answer is the last, its usage the sum. */
  private async completeWithServerTools(request: ChatCreateRequest, prepared: PreparedChat, toolsPlan: ServerToolsPlan, signal?: AbortSignal): Promise<ChatCompletionView> {
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
      settle: async (step, usage, toolCost) => {
        const id = newGenerationId();
        const charge = await this.accounting.settle({ generationId: id, principal, attempt: step.attempt, tracker: step.tracker, usage, status: 'succeeded', sessionId: prepared.sessionId, toolCost });
        return { charge, extra: { id } };
      },
    });
    const last = steps.at(-1)!;
    const view = buildChatCompletion({
      id: last.extra.id,
      modelId: last.attempt.modelId,
      endpoint: last.attempt.endpoint,
      completion: last.completion,
      cost: last.charge.upstream,
      isByok: last.charge.isByok,
      charged: last.charge.charged,
      serviceMetadata: request.serviceMetadata ? this.accounting.metadata(prepared.plan, last.tracker) : undefined,
    });
    view.usage = sumUsageViews(steps.map((step) => buildUsageView(step.usage, step.charge.upstream, step.charge.isByok, step.charge.charged)));
    return view;
  }
}
