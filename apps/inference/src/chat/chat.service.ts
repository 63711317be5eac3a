import { Injectable } from '@nestjs/common';
import type { ChatCompletionView, ChatCreateRequest } from '@gw/contracts';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
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
}
