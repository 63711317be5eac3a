import { anthropicFinishReason } from '../providers/anthropic/anthropic-response.js';
import { finishOfCompletion, type GenerationFinish } from '../usage/generation-finish.js';
import { chatContent, type GenerationContentDraft } from '../content/generation-content.js';
import { Injectable } from '@nestjs/common';
import type { ChatCreateRequest, MessageView } from '@gw/contracts';
import { ChatPreparation } from '../shared-pipeline/chat-preparation.service.js';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { ModelCalls } from '../shared-pipeline/model-calls.service.js';
import { CallCancellations } from '../shared-pipeline/call-cancellations.js';
import { AdapterRegistry } from '../providers/adapter-registry.js';
import { AnthropicAdapter } from '../providers/anthropic/anthropic.adapter.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { chatBodyFromMessages } from './chat-body-from-messages.js';
import { draftFromCompletion, draftFromNative, messageUsageView, type MessageDraft } from './message-from-completion.js';
import { nativeBodyFor, nativeWarnings, translationWarnings, type MessagesRequestForms } from './messages-attempt.js';
import { nativeBetas } from './native-body.js';
import { SpendHolds } from '../billing/spend-holds.service.js';
import { metadataField } from '../routing/metadata-field.js';

interface MessageResult {
  draft: MessageDraft;
  usage: NormalizedUsage;
  warnings: string[];
  finish: GenerationFinish;
  output: GenerationContentDraft['output'];
}

/**
 * `POST /v1/messages` (Anthropic's Messages API), not streamed: the shared pipeline on the
 * request's chat-completions form (ChatPreparation, one model call, GenerationAccounting),
 * where each attempt either relays the Messages body to an Anthropic-format endpoint or sends
 * the chat form to an OpenAI-format one and translates the answer back.
 */
@Injectable()
export class MessagesService {
  constructor(
    private readonly preparation: ChatPreparation,
    private readonly calls: ModelCalls,
    private readonly accounting: GenerationAccounting,
    private readonly cancellations: CallCancellations,
    private readonly adapters: AdapterRegistry,
    private readonly anthropic: AnthropicAdapter,
    private readonly holds: SpendHolds,
  ) {}

  /** The client may leave before the answer: the gateway then cancels by request id, and the provider call is aborted. */
  async create(request: ChatCreateRequest): Promise<MessageView> {
    return this.holds.around(request.principal, () =>
      this.cancellations.around(request.requestId, (signal) => this.complete(request, signal)),
    );
  }

  private async complete(request: ChatCreateRequest, signal?: AbortSignal): Promise<MessageView> {
    const forms: MessagesRequestForms = { request: request.body, chat: chatBodyFromMessages(request.body), betas: request.anthropicBeta };
    const prepared = await this.preparation.prepare({ ...request, body: forms.chat }, signal);
    const { result, attempt, tracker } = await this.calls.run<MessageResult>(prepared, async (current, context) => {
      const { endpoint } = current;
      if (endpoint.provider.format === 'anthropic') {
        const body = nativeBodyFor(forms, current, prepared, false);
        const native = await this.anthropic.completeNative(endpoint, body, context, nativeBetas(forms.request, forms.betas));
        const stop = native.message.stop_reason ?? null;
        const finish = {
          finishReason: anthropicFinishReason(stop),
          nativeFinishReason: stop,
          upstreamId: typeof native.message.id === 'string' ? native.message.id : null,
        };
        return {
          draft: draftFromNative(native.message),
          usage: native.usage,
          warnings: nativeWarnings(forms),
          finish,
          output: nativeOutput(native.message.content),
        };
      }
      const warnings = translationWarnings(forms, current);
      const completion = await this.adapters.for(endpoint.provider.format).complete(endpoint, prepared.body, context);
      return {
        draft: draftFromCompletion(completion),
        usage: completion.usage,
        warnings,
        finish: finishOfCompletion(completion),
        output: chatContent([], completion).output,
      };
    });
    const id = newGenerationId();
    const charge = await this.accounting.settle({
      generationId: id,
      principal: request.principal,
      attempt,
      tracker,
      usage: result.usage,
      status: 'succeeded',
      sessionId: prepared.sessionId,
      request: prepared.facts,
      finish: result.finish,
      content: () => ({ input: { messages: Array.isArray(prepared.body.messages) ? prepared.body.messages : [] }, output: result.output }),
    });
    const serviceMetadata = request.serviceMetadata ? this.accounting.metadata(prepared.plan, tracker) : undefined;
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
    if (serviceMetadata) view[metadataField(request)] = serviceMetadata;
    if (result.warnings.length > 0) view.gateway_warnings = result.warnings;
    return view;
  }
}

/** An Anthropic message's text and thinking blocks, as the stored content's completion and reasoning. */
function nativeOutput(blocks: unknown): GenerationContentDraft['output'] {
  const list = Array.isArray(blocks) ? (blocks as Array<{ type?: unknown; text?: unknown; thinking?: unknown }>) : [];
  const texts = list.filter((block) => block.type === 'text' && typeof block.text === 'string').map((block) => block.text as string);
  const thoughts = list
    .filter((block) => block.type === 'thinking' && typeof block.thinking === 'string')
    .map((block) => block.thinking as string);
  return { completion: texts.length > 0 ? texts.join('') : null, reasoning: thoughts.length > 0 ? thoughts.join('') : null };
}
