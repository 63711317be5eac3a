import { Injectable } from '@nestjs/common';
import type { ChatCompletionView, ChatCreateRequest } from '@gw/contracts';
import { AdapterRegistry } from '../providers/adapter-registry.js';
import { buildChatCompletion } from './chat-completion.builder.js';
import { GenerationPipeline } from './generation-pipeline.service.js';

/**
 * One non-streaming chat completion: the shared pipeline (preparation, routing, pricing,
 * usage event) with the endpoint's adapter as the call, and routing metadata when the
 * caller opted in.
 */
@Injectable()
export class ChatService {
  constructor(
    private readonly adapters: AdapterRegistry,
    private readonly pipeline: GenerationPipeline,
  ) {}

  async create(request: ChatCreateRequest): Promise<ChatCompletionView> {
    const { id, result: completion, attempt, charge, serviceMetadata } = await this.pipeline.complete(request, (current, context, prepared) =>
      this.adapters.for(current.endpoint.provider.format).complete(current.endpoint, prepared.body, context),
    );
    return buildChatCompletion({
      id,
      modelId: attempt.modelId,
      endpoint: attempt.endpoint,
      completion,
      cost: charge.upstream,
      isByok: charge.isByok,
      charged: charge.charged,
      serviceMetadata,
    });
  }
}
