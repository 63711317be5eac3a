import type { ChatChoiceView } from '@gw/contracts';
import { estimatePromptText, estimateTokens, type PromptText } from '../../pricing/token-estimate.js';
import { normalizeAnnotations } from '../assistant-message.js';
import type { NormalizedCompletion, NormalizedUsage } from '../provider-adapter.js';

type Json = Record<string, unknown>;

/** The `format` of reasoning details that came from a Responses endpoint (OpenRouter's spelling). */
export const OPENAI_RESPONSES_REASONING_FORMAT = 'openai-responses-v1';

export interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

export interface ResponsesObject {
  id?: string;
  status?: string;
  service_tier?: string | null;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
  output?: Json[];
  usage?: ResponsesUsage | null;
}

/** What one Responses output list says, in the chat form's terms. */
export interface ResponsesOutputParts {
  text: string;
  refusal: string | null;
  annotations: Json[];
  reasoning: string[];
  reasoningDetails: Json[];
  toolCalls: Array<{ index: number; id: string; type: 'function'; function: { name: string; arguments: string } }>;
}

function readOutputItems(output: readonly Json[]): ResponsesOutputParts {
  const parts: ResponsesOutputParts = { text: '', refusal: null, annotations: [], reasoning: [], reasoningDetails: [], toolCalls: [] };
  for (const item of output) {
    if (item.type === 'message' && Array.isArray(item.content)) {
      for (const part of item.content as Json[]) {
        if (part.type === 'output_text' && typeof part.text === 'string') {
          parts.text += part.text;
          if (Array.isArray(part.annotations)) parts.annotations.push(...(part.annotations as Json[]).map(toChatAnnotation));
        } else if (part.type === 'refusal' && typeof part.refusal === 'string') {
          parts.refusal = (parts.refusal ?? '') + part.refusal;
        }
      }
    } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      // A custom tool's call is a function call in the gateway, its raw input the arguments.
      const args = item.type === 'custom_tool_call' ? item.input : item.arguments;
      parts.toolCalls.push({
        index: parts.toolCalls.length,
        id: String(item.call_id ?? item.id ?? ''),
        type: 'function',
        function: { name: String(item.name ?? ''), arguments: String(args ?? '') },
      });
    } else if (item.type === 'reasoning') {
      parts.reasoningDetails.push(...reasoningDetailsOf(item, parts.reasoningDetails.length));
      for (const summary of (item.summary as Json[] | undefined) ?? [])
        if (typeof summary.text === 'string') parts.reasoning.push(summary.text);
    }
  }
  return parts;
}

/** A reasoning item as OpenRouter-style reasoning details: its summaries, then its encrypted content. */
export function reasoningDetailsOf(item: Json, firstIndex: number): Json[] {
  const details: Json[] = [];
  const id = typeof item.id === 'string' ? item.id : null;
  for (const summary of (item.summary as Json[] | undefined) ?? []) {
    if (typeof summary.text === 'string')
      details.push({
        type: 'reasoning.summary',
        summary: summary.text,
        id,
        format: OPENAI_RESPONSES_REASONING_FORMAT,
        index: firstIndex + details.length,
      });
  }
  if (typeof item.encrypted_content === 'string') {
    details.push({
      type: 'reasoning.encrypted',
      data: item.encrypted_content,
      id,
      format: OPENAI_RESPONSES_REASONING_FORMAT,
      index: firstIndex + details.length,
    });
  }
  return details;
}

/** `url_citation` is spelled alike; chat nests it (OpenAI's chat message annotations). */
function toChatAnnotation(annotation: Json): Json {
  if (annotation.type !== 'url_citation') return annotation;
  const { type: _type, ...citation } = annotation;
  return { type: 'url_citation', url_citation: citation };
}

/** Status (and incomplete reason) of a Responses object as a chat finish reason. */
export function finishReasonOf(status: string | undefined, incompleteReason: string | undefined, calledTools: boolean): string {
  if (status === 'incomplete') return incompleteReason === 'content_filter' ? 'content_filter' : 'length';
  return calledTools ? 'tool_calls' : 'stop';
}

export function normalizeResponsesUsage(usage: ResponsesUsage | null | undefined): NormalizedUsage | undefined {
  if (!usage || typeof usage.input_tokens !== 'number' || typeof usage.output_tokens !== 'number') return undefined;
  return {
    promptTokens: usage.input_tokens,
    completionTokens: usage.output_tokens,
    cachedTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
    estimated: false,
  };
}

/** A Responses object as the normalised chat completion the pipeline prices and the front doors render. */
export function normalizeResponsesObject(response: ResponsesObject, promptText: PromptText): NormalizedCompletion {
  const parts = readOutputItems(response.output ?? []);
  const message: ChatChoiceView['message'] & { reasoning_details?: Json[] } = {
    role: 'assistant',
    content: parts.text.length > 0 || parts.toolCalls.length === 0 ? parts.text : null,
    refusal: parts.refusal,
  };
  if (parts.toolCalls.length > 0) message.tool_calls = parts.toolCalls;
  // Through the same filter as chat (assistant-message.ts): only spec §2.1's three kinds.
  const annotations = normalizeAnnotations(parts.annotations);
  if (annotations.length > 0) message.annotations = annotations;
  if (parts.reasoningDetails.length > 0) {
    message.reasoning = parts.reasoning.length > 0 ? parts.reasoning.join('\n\n') : null;
    message.reasoning_details = parts.reasoningDetails;
  }
  const reason = response.incomplete_details?.reason;
  return {
    upstreamId: response.id ?? null,
    systemFingerprint: null,
    serviceTier: response.service_tier ?? null,
    choices: [
      {
        index: 0,
        message,
        finish_reason: finishReasonOf(response.status, reason, parts.toolCalls.length > 0),
        native_finish_reason: reason ?? response.status ?? null,
        logprobs: null,
      },
    ],
    usage: normalizeResponsesUsage(response.usage) ?? {
      promptTokens: estimatePromptText(promptText),
      completionTokens: estimateTokens(parts.text + parts.toolCalls.map((call) => call.function.arguments).join('')),
      cachedTokens: 0,
      reasoningTokens: 0,
      estimated: true,
    },
  };
}
