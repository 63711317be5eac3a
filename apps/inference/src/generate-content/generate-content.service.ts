import { finishOfCompletion } from '../usage/generation-finish.js';
import { chatContent } from '../content/generation-content.js';
import { Injectable } from '@nestjs/common';
import type { ChatCreateRequest } from '@gw/contracts';
import { SpendHolds } from '../billing/spend-holds.service.js';
import { ChatPreparation } from '../shared-pipeline/chat-preparation.service.js';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { ModelCalls } from '../shared-pipeline/model-calls.service.js';
import { CallCancellations } from '../shared-pipeline/call-cancellations.js';
import { AdapterRegistry } from '../providers/adapter-registry.js';
import { estimatePromptTokens } from '../pricing/token-estimate.js';
import { GoogleGenerativeAdapter } from '../providers/gemini/gemini.adapter.js';
import { chatBodyFromGemini } from '../providers/gemini/chat-body-from-gemini.js';
import { geminiResponseOf } from '../providers/gemini/gemini-from-completion.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { metadataField } from '../routing/metadata-field.js';

/**
 * `POST /v1beta/models/{model}:generateContent` (Google's SDK), not streamed: the request's chat
 * form through the shared pipeline (preparation, routing with fallbacks, one model call,
 * accounting) on any endpoint, the answer rendered as Gemini's GenerateContentResponse.
 */
@Injectable()
export class GenerateContentService {
  constructor(
    private readonly preparation: ChatPreparation,
    private readonly calls: ModelCalls,
    private readonly accounting: GenerationAccounting,
    private readonly cancellations: CallCancellations,
    private readonly adapters: AdapterRegistry,
    private readonly holds: SpendHolds,
  ) {}

  /** The client may leave before the answer: the gateway then cancels by request id, and the provider call is aborted. */
  async create(request: ChatCreateRequest): Promise<Record<string, unknown>> {
    return this.holds.around(request.principal, () =>
      this.cancellations.around(request.requestId, (signal) => this.complete(request, signal)),
    );
  }

  /**
   * `:countTokens`: the prompt's tokens for the endpoint the request would be routed to first
   * (with its fallbacks): Gemini and Vertex count it themselves; for other providers, whose
   * tokenizers the gateway does not hold, it is the gateway's estimate (as when a provider
   * reports no usage). Nothing is generated, charged or recorded.
   */
  async countTokens(request: ChatCreateRequest): Promise<{ totalTokens: number }> {
    const prepared = await this.preparation.prepare({ ...request, body: chatBodyFromGemini(request.body) }, undefined, { countOnly: true });
    const { result } = await this.calls.run(prepared, (current, context) => {
      const adapter = this.adapters.for(current.endpoint.provider.format);
      return adapter instanceof GoogleGenerativeAdapter
        ? adapter.countTokens(current.endpoint, prepared.body, context)
        : Promise.resolve(estimatePromptTokens(prepared.body.messages));
    });
    return { totalTokens: result };
  }

  private async complete(request: ChatCreateRequest, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const prepared = await this.preparation.prepare({ ...request, body: chatBodyFromGemini(request.body) }, signal);
    const { result, attempt, tracker } = await this.calls.run(prepared, (current, context) =>
      this.adapters.for(current.endpoint.provider.format).complete(current.endpoint, prepared.body, context),
    );
    const id = newGenerationId();
    await this.accounting.settle({
      generationId: id,
      principal: request.principal,
      attempt,
      tracker,
      usage: result.usage,
      status: 'succeeded',
      sessionId: prepared.sessionId,
      request: prepared.facts,
      finish: finishOfCompletion(result),
      content: () => chatContent(prepared.body.messages, result),
    });
    const response = geminiResponseOf(result, result.usage, { model: attempt.modelId, responseId: id });
    if (request.serviceMetadata) response[metadataField(request)] = this.accounting.metadata(prepared.plan, tracker);
    return response;
  }
}
