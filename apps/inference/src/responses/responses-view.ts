import type {
  ChatUsageView,
  ResponsesImageItemView,
  ResponsesMessageItemView,
  ResponsesOutputItemView,
  ResponsesReasoningItemView,
  ResponsesResponseView,
  ResponsesUsageView,
} from '@gw/contracts';
import type { GatewayError } from '@gw/errors';
import { randomUUID } from 'node:crypto';
import type { NormalizedCompletion } from '../providers/provider-adapter.js';
import { clientCallItem } from './client-tools.js';
import { encodeReasoningContent } from './reasoning-content.js';
import type { ResponsesOptions } from './responses-request.js';

type Json = Record<string, unknown>;

/** `<prefix>_<32 hex>`, the shape OpenAI's ids have (resp_, msg_, fc_, rs_). */
export function newItemId(prefix: 'resp' | 'msg' | 'fc' | 'rs' | 'ig' | 'ws'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

/** What every event and the final object of one response share. */
export interface ResponseHead {
  id: string;
  createdAt: number;
  /** The public model id that answered. */
  model: string;
  /** The echoed configuration (echoedConfiguration). */
  echo: Json;
}

/**
 * The request's configuration as the response repeats it (spec §2.6), with the defaults
 * OpenAI reports for what was left out, so clients that require the fields find them.
 */
export function echoedConfiguration(body: Json): Json {
  const or = (field: string, fallback: unknown) => (body[field] === undefined || body[field] === null ? fallback : body[field]);
  return {
    instructions: or('instructions', null),
    tools: or('tools', []),
    tool_choice: or('tool_choice', 'auto'),
    parallel_tool_calls: or('parallel_tool_calls', true),
    temperature: or('temperature', null),
    top_p: or('top_p', null),
    presence_penalty: or('presence_penalty', null),
    frequency_penalty: or('frequency_penalty', null),
    top_logprobs: or('top_logprobs', null),
    max_output_tokens: or('max_output_tokens', null),
    max_tool_calls: or('max_tool_calls', null),
    reasoning: or('reasoning', null),
    text: or('text', { format: { type: 'text' } }),
    truncation: or('truncation', 'disabled'),
    service_tier: or('service_tier', null),
    metadata: or('metadata', {}),
    prompt: or('prompt', null),
    prompt_cache_key: or('prompt_cache_key', null),
    user: or('user', null),
    store: false,
    background: false,
    previous_response_id: null,
  };
}

/** A response object in any state; `output_text` is the text of its message items. */
export function responseObject(
  head: ResponseHead,
  state: Pick<ResponsesResponseView, 'status' | 'output' | 'usage' | 'error' | 'incomplete_details'> & { serviceTier?: string | null },
): ResponsesResponseView {
  const done = state.status === 'completed' || state.status === 'incomplete' || state.status === 'failed';
  const view: ResponsesResponseView = {
    id: head.id,
    object: 'response',
    created_at: head.createdAt,
    completed_at: done ? Math.floor(Date.now() / 1000) : null,
    model: head.model,
    status: state.status,
    error: state.error,
    incomplete_details: state.incomplete_details,
    output: state.output,
    output_text: outputText(state.output),
    usage: state.usage,
    ...head.echo,
  };
  if (state.serviceTier) view.service_tier = state.serviceTier;
  return view;
}

function outputText(output: readonly ResponsesOutputItemView[]): string {
  let text = '';
  for (const item of output) {
    if (item.type !== 'message') continue;
    for (const part of item.content) if (part.type === 'output_text') text += part.text;
  }
  return text;
}

/** Status and incomplete reason from the chat finish reason (spec §3.2). */
export function statusOf(finishReason: string | null): {
  status: 'completed' | 'incomplete';
  incomplete_details: { reason: string } | null;
} {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The failed state: the envelope's error (code as a string, as OpenAI clients read it) and the canonical type. */
export function failedState(error: GatewayError): { error: NonNullable<ResponsesResponseView['error']>; errorType: string } {
  const metadata: Record<string, unknown> = { ...(error.metadata ?? {}), error_type: error.errorType };
  return { error: { code: error.errorType, message: error.message, metadata }, errorType: error.errorType };
}

/** Spec §2.6 usage from the chat usage the pipeline priced (same numbers, Responses names). */
export function toResponsesUsage(usage: ChatUsageView): ResponsesUsageView {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
    cost: usage.cost,
    is_byok: usage.is_byok,
    cost_details: {
      upstream_inference_cost: usage.cost_details.upstream_inference_cost,
      upstream_inference_input_cost: usage.cost_details.upstream_inference_input_cost,
      upstream_inference_output_cost: usage.cost_details.upstream_inference_output_cost,
    },
    ...(usage.server_tool_use
      ? { server_tool_use: usage.server_tool_use, server_tool_use_details: usage.server_tool_use_details ?? { ...usage.server_tool_use } }
      : {}),
  };
}

export function reasoningItem(
  id: string,
  summaryText: string,
  details: readonly Json[],
  options: ResponsesOptions,
): ResponsesReasoningItemView {
  const item: ResponsesReasoningItemView = {
    type: 'reasoning',
    id,
    summary: summaryText.length > 0 ? [{ type: 'summary_text', text: summaryText }] : [],
  };
  if (options.includeEncryptedReasoning && details.length > 0) item.encrypted_content = encodeReasoningContent(details);
  return item;
}

export function messageItem(
  id: string,
  text: string,
  annotations: unknown[],
  refusal: string | null,
  status: ResponsesMessageItemView['status'],
): ResponsesMessageItemView {
  const content: ResponsesMessageItemView['content'] = [];
  if (refusal) content.push({ type: 'refusal', refusal });
  if (text.length > 0 || !refusal) content.push({ type: 'output_text', text, annotations, logprobs: [] });
  return { type: 'message', id, role: 'assistant', status, content };
}

/** Chat annotations (`{type: "url_citation", url_citation: {...}}`) in the Responses shape (flat). */
export function toResponsesAnnotation(annotation: unknown): unknown {
  const nested = annotation as { type?: unknown; url_citation?: Json };
  if (nested?.type === 'url_citation' && nested.url_citation) return { type: 'url_citation', ...nested.url_citation };
  return annotation;
}

/**
 * The output items of one model call: reasoning (when the model reasoned), the message
 * (when it wrote text or refused), then one function_call per tool call.
 */
export function outputItemsOf(completion: NormalizedCompletion, options: ResponsesOptions): ResponsesOutputItemView[] {
  const choice = completion.choices[0];
  if (!choice) return [];
  const message = choice.message as typeof choice.message & { reasoning_details?: Json[] };
  const items: ResponsesOutputItemView[] = [];
  const details = Array.isArray(message.reasoning_details) ? message.reasoning_details : [];
  if (typeof message.reasoning === 'string' || details.length > 0)
    items.push(reasoningItem(newItemId('rs'), message.reasoning ?? '', details, options));
  const text = typeof message.content === 'string' ? message.content : '';
  const calls = message.tool_calls ?? [];
  if (text.length > 0 || message.refusal || calls.length === 0) {
    const status = statusOf(choice.finish_reason).status === 'incomplete' ? 'incomplete' : 'completed';
    items.push(messageItem(newItemId('msg'), text, (message.annotations ?? []).map(toResponsesAnnotation), message.refusal, status));
  }
  for (const call of calls)
    items.push(clientCallItem(options.clientTools, newItemId('fc'), call.id, call.function.name, call.function.arguments, 'completed'));
  items.push(...imageItems((message as { images?: unknown }).images));
  return items;
}

/**
 * Images a model generated, in the chat form's `images` (`[{type: "image_url", image_url: {url}}]`,
 * data: URLs), as `image_generation_call` items whose `result` is the base64 image, as OpenAI returns it.
 */
export function imageItems(images: unknown): ResponsesImageItemView[] {
  if (!Array.isArray(images)) return [];
  return images.flatMap((image: { image_url?: { url?: unknown } | string }) => {
    const url = typeof image?.image_url === 'string' ? image.image_url : image?.image_url?.url;
    if (typeof url !== 'string' || url.length === 0) return [];
    const comma = url.startsWith('data:') ? url.indexOf(',') : -1;
    return [
      {
        type: 'image_generation_call' as const,
        id: newItemId('ig'),
        status: 'completed' as const,
        result: comma >= 0 ? url.slice(comma + 1) : url,
      },
    ];
  });
}
