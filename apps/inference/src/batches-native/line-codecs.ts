import type { BatchEndpoint, ChatCompletionView, EmbeddingsView, MessageView } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import type { ProviderFormat } from '../catalog/catalog.schema.js';
import { buildChatCompletion } from '../shared-pipeline/chat-completion.builder.js';
import { embeddingsUsage } from '../embeddings/embeddings.service.js';
import { buildEmbeddingsView } from '../embeddings/embeddings-view.js';
import { upstreamBody as embeddingsUpstreamBody, type UpstreamEmbeddings } from '../embeddings/openai-embeddings.client.js';
import { chatBodyFromMessages } from '../messages/chat-body-from-messages.js';
import { draftFromCompletion, draftFromNative, messageUsageView, type MessageDraft } from '../messages/message-from-completion.js';
import { translationWarnings } from '../messages/messages-attempt.js';
import { nativeAnthropicBody } from '../messages/native-body.js';
import type { Charge } from '../pricing/charge.js';
import { anthropicBody, excludesReasoning } from '../providers/anthropic/anthropic.adapter.js';
import {
  normalizeAnthropicMessage,
  normalizeAnthropicUsage,
  type AnthropicMessageResponse,
} from '../providers/anthropic/anthropic-response.js';
import { buildOpenAiChatBody } from '../providers/openai/openai-request.js';
import { normalizeOpenAiResponse, type OpenAiChatResponse } from '../providers/openai/openai-response.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import type { RouteAttempt } from '../routing/route-types.js';

/*
 * One batch line, both ways, with the SAME translation the live endpoint uses: the
 * gateway-shaped body becomes the provider's request body exactly as the live adapter would
 * build it (OpenAI chat body builder, the Anthropic chat translation, the Messages front door's
 * native body, the embeddings body), and the provider's answer becomes the gateway's own
 * response shape for the endpoint, priced at the endpoint's batch price.
 */

/** Per-line options the answer's translation needs that the provider does not echo back (kept in the handle). */
export interface LineOptions {
  /** `reasoning.exclude: true` on a chat line sent to an Anthropic-format endpoint. */
  excludeReasoning?: boolean;
}

export interface EncodeContext {
  attempt: RouteAttempt;
  endUserHash?: string;
}

export interface Encoded {
  /** The provider's request body for the line. */
  body: Record<string, unknown>;
  options?: LineOptions;
}

export interface DecodeContext {
  generationId: string;
  modelId: string;
  endpoint: RoutableEndpoint;
  options: LineOptions;
  /** Prices the line's usage (batch price; BYOK fee) */
  price: (usage: NormalizedUsage) => Charge;
}

export interface Decoded {
  body: ChatCompletionView | MessageView | EmbeddingsView;
  usage: NormalizedUsage;
  charge: Charge;
}

export interface LineCodec {
  /** The path the provider's batch API names for the line (OpenAI's `url`; unused by Anthropic). */
  path: string;
  encode(body: Record<string, unknown>, context: EncodeContext): Encoded;
  /** The provider's 2xx answer for the line; throws when it is not the shape expected. */
  decode(answer: unknown, context: DecodeContext): Decoded;
}

function malformed(provider: string): GatewayError {
  return new GatewayError(502, `Provider ${provider} sent a malformed batch result`, {
    errorType: 'provider_unavailable',
    metadata: { provider },
  });
}

const openAiChat: LineCodec = {
  path: '/v1/chat/completions',
  encode: (body, { attempt, endUserHash }) => ({ body: buildOpenAiChatBody(body, attempt.endpoint, endUserHash) }),
  decode(answer, context) {
    const parsed = answer as OpenAiChatResponse | undefined;
    if (!parsed || !Array.isArray(parsed.choices)) throw malformed(context.endpoint.provider.id);
    const completion = normalizeOpenAiResponse(parsed, '');
    return chatView(completion, context);
  },
};

const anthropicChat: LineCodec = {
  path: '/v1/messages',
  encode(body, { attempt, endUserHash }) {
    const upstream = anthropicBody(attempt.endpoint, body, { endUserHash }, false);
    delete upstream.stream;
    return { body: upstream, ...(excludesReasoning(body) ? { options: { excludeReasoning: true } } : {}) };
  },
  decode(answer, context) {
    const parsed = answer as AnthropicMessageResponse | undefined;
    if (!parsed || !Array.isArray(parsed.content)) throw malformed(context.endpoint.provider.id);
    return chatView(
      normalizeAnthropicMessage(parsed, { excludeReasoning: context.options.excludeReasoning === true, promptText: '' }),
      context,
    );
  },
};

function chatView(completion: ReturnType<typeof normalizeOpenAiResponse>, context: DecodeContext): Decoded {
  const charge = context.price(completion.usage);
  const body = buildChatCompletion({
    id: context.generationId,
    modelId: context.modelId,
    endpoint: context.endpoint,
    completion,
    cost: charge.upstream,
    isByok: charge.isByok,
    charged: charge.charged,
  });
  return { body, usage: completion.usage, charge };
}

const anthropicMessages: LineCodec = {
  path: '/v1/messages',
  encode(body, { attempt, endUserHash }) {
    const chat = chatBodyFromMessages(body);
    const upstream = nativeAnthropicBody({
      request: body,
      chat,
      prepared: chat,
      upstreamModel: attempt.endpoint.upstreamModel,
      endUserHash,
    });
    delete upstream.stream;
    return { body: upstream };
  },
  decode(answer, context) {
    const parsed = answer as (AnthropicMessageResponse & Record<string, unknown>) | undefined;
    if (!parsed || !Array.isArray(parsed.content)) throw malformed(context.endpoint.provider.id);
    const usage =
      normalizeAnthropicUsage(parsed.usage) ?? normalizeAnthropicMessage(parsed, { excludeReasoning: false, promptText: '' }).usage;
    return messageView(draftFromNative(parsed), usage, context);
  },
};

const openAiMessages: LineCodec = {
  path: '/v1/chat/completions',
  encode(body, { attempt, endUserHash }) {
    const chat = chatBodyFromMessages(body);
    // Refuses what the line needs; what is left out (context_management) is not reported on a batch line.
    translationWarnings({ request: body, chat }, attempt);
    return { body: buildOpenAiChatBody(chat, attempt.endpoint, endUserHash) };
  },
  decode(answer, context) {
    const parsed = answer as OpenAiChatResponse | undefined;
    if (!parsed || !Array.isArray(parsed.choices)) throw malformed(context.endpoint.provider.id);
    const completion = normalizeOpenAiResponse(parsed, '');
    return messageView(draftFromCompletion(completion), completion.usage, context);
  },
};

/** The Messages front door's view (messages.service.ts), priced at the batch price. */
function messageView(draft: MessageDraft, usage: NormalizedUsage, context: DecodeContext): Decoded {
  const charge = context.price(usage);
  const body: MessageView = {
    id: context.generationId,
    type: 'message',
    role: 'assistant',
    content: draft.content,
    model: context.modelId,
    stop_reason: draft.stop_reason,
    stop_sequence: draft.stop_sequence,
    stop_details: draft.stop_details,
    container: draft.container,
    input_transformations: draft.input_transformations,
    usage: messageUsageView(usage, draft.usageExtras, charge.upstream, charge.isByok, charge.charged),
    provider: context.endpoint.provider.name,
  };
  return { body, usage, charge };
}

const openAiEmbeddings: LineCodec = {
  path: '/v1/embeddings',
  encode: (body, { attempt, endUserHash }) => ({ body: embeddingsUpstreamBody(body, attempt.endpoint.upstreamModel, endUserHash) }),
  decode(answer, context) {
    const parsed = answer as UpstreamEmbeddings | undefined;
    if (!parsed || !Array.isArray(parsed.data)) throw malformed(context.endpoint.provider.id);
    const usage = embeddingsUsage(parsed, undefined);
    const charge = context.price(usage);
    const body = buildEmbeddingsView({
      id: context.generationId,
      modelId: context.modelId,
      provider: context.endpoint.provider.name,
      result: parsed,
      usage,
      charge,
    });
    return { body, usage, charge };
  },
};

const CODECS: Partial<Record<BatchEndpoint, Partial<Record<ProviderFormat, LineCodec>>>> = {
  '/v1/chat/completions': { openai: openAiChat, anthropic: anthropicChat },
  '/v1/messages': { anthropic: anthropicMessages, openai: openAiMessages },
  '/v1/embeddings': { openai: openAiEmbeddings },
  // `/v1/responses` is run by the gateway: a Responses request can take several model calls
  // (server tools, reasoning replays) that one provider batch line cannot.
};

/** How this endpoint's lines go through its provider's batch API, if they can. */
export function codecFor(endpoint: BatchEndpoint, format: ProviderFormat): LineCodec | undefined {
  return CODECS[endpoint]?.[format];
}
