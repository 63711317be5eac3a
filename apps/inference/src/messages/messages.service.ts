import { Injectable } from '@nestjs/common';
import type { ChatCreateRequest, MessageView } from '@gw/contracts';
import { GenerationPipeline } from '../chat/generation-pipeline.service.js';
import { AdapterRegistry } from '../providers/adapter-registry.js';
import { AnthropicAdapter } from '../providers/anthropic/anthropic.adapter.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import { chatBodyFromMessages } from './chat-body-from-messages.js';
import { draftFromCompletion, draftFromNative, messageUsageView, type MessageDraft } from './message-from-completion.js';
import { assertTranslatable, nativeBodyFor, type MessagesRequestForms } from './messages-attempt.js';

interface MessageResult {
  draft: MessageDraft;
  usage: NormalizedUsage;
}

/**
 * `POST /v1/messages` (Anthropic's Messages API), not streamed: the chat pipeline on the
 * request's chat-completions form, where each attempt either relays the Messages body to an
 * Anthropic-format endpoint or sends the chat form to an OpenAI-format one and translates the
 * answer back (docs/adr: messages front door).
 */
@Injectable()
export class MessagesService {
  constructor(
    private readonly pipeline: GenerationPipeline,
    private readonly adapters: AdapterRegistry,
    private readonly anthropic: AnthropicAdapter,
  ) {}

  async create(request: ChatCreateRequest): Promise<MessageView> {
    const forms: MessagesRequestForms = { request: request.body, chat: chatBodyFromMessages(request.body) };
    const { id, result, attempt, charge, serviceMetadata } = await this.pipeline.complete<MessageResult>({ ...request, body: forms.chat }, async (current, context, prepared) => {
      const { endpoint } = current;
      if (endpoint.provider.format === 'anthropic') {
        const native = await this.anthropic.completeNative(endpoint, nativeBodyFor(forms, current, prepared, false), context);
        return { draft: draftFromNative(native.message), usage: native.usage };
      }
      assertTranslatable(forms, current);
      const completion = await this.adapters.for(endpoint.provider.format).complete(endpoint, prepared.body, context);
      return { draft: draftFromCompletion(completion), usage: completion.usage };
    });
    const { draft } = result;
    const view: MessageView = {
      id,
      type: 'message',
      role: 'assistant',
      content: draft.content,
      model: attempt.modelId,
      stop_reason: draft.stop_reason,
      stop_sequence: draft.stop_sequence,
      stop_details: draft.stop_details,
      container: draft.container,
      input_transformations: draft.input_transformations,
      usage: messageUsageView(result.usage, draft.usageExtras, charge.upstream, charge.isByok, charge.charged),
      provider: attempt.endpoint.provider.name,
    };
    if (serviceMetadata) view.service_metadata = serviceMetadata;
    return view;
  }
}
