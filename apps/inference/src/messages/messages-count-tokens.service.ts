import { Injectable } from '@nestjs/common';
import type { ChatCreateRequest, MessageTokenCountView } from '@gw/contracts';
import { ChatPreparation } from '../shared-pipeline/chat-preparation.service.js';
import { ModelCalls } from '../shared-pipeline/model-calls.service.js';
import { AnthropicAdapter } from '../providers/anthropic/anthropic.adapter.js';
import { chatBodyFromMessages } from './chat-body-from-messages.js';
import { CHAT_TOKENIZER, countChatTokens } from './chat-token-count.js';
import { nativeBodyFor, translationWarnings, type MessagesRequestForms } from './messages-attempt.js';
import { nativeBetas } from './native-body.js';

/** What Anthropic's count endpoint takes of a Messages body (it refuses max_tokens, stream, sampling, ...). */
const COUNT_FIELDS = [
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'context_management',
  'mcp_servers',
  'cache_control',
  'speed',
];

/**
 * `POST /v1/messages/count_tokens`: the input tokens of a Messages body on the model it names,
 * routed as a message would be (preset, BYOK, fallbacks) but with no generation and no charge.
 * An Anthropic-format endpoint counts with its own count endpoint; for any other the chat form
 * is counted with a tokenizer. `counted_by` says which (the gateway sends it as a header).
 */
@Injectable()
export class MessagesCountTokensService {
  constructor(
    private readonly preparation: ChatPreparation,
    private readonly calls: ModelCalls,
    private readonly anthropic: AnthropicAdapter,
  ) {}

  async count(request: ChatCreateRequest): Promise<MessageTokenCountView> {
    const body = request.body;
    const forms: MessagesRequestForms = { request: body, chat: chatBodyFromMessages(body), betas: request.anthropicBeta };
    const prepared = await this.preparation.prepare({ ...request, body: forms.chat }, undefined, { countOnly: true });
    const { result } = await this.calls.run<MessageTokenCountView>(prepared, async (attempt, context) => {
      if (attempt.endpoint.provider.format === 'anthropic') {
        const native = nativeBodyFor(forms, attempt, prepared, false);
        const countBody = Object.fromEntries(
          COUNT_FIELDS.filter((field) => native[field] !== undefined).map((field) => [field, native[field]]),
        );
        const tokens = await this.anthropic.countTokensNative(attempt.endpoint, countBody, context, nativeBetas(body, forms.betas));
        return { input_tokens: tokens, counted_by: 'anthropic' };
      }
      translationWarnings(forms, attempt);
      return { input_tokens: await countChatTokens(prepared.body), counted_by: CHAT_TOKENIZER };
    });
    return result;
  }
}
