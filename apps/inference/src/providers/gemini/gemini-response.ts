import type { ChatChoiceView } from '@gw/contracts';
import { createHash } from 'node:crypto';
import { estimatePromptText, estimateTokens, type PromptText } from '../../pricing/token-estimate.js';
import type { NormalizedCompletion, NormalizedUsage } from '../provider-adapter.js';
import { GEMINI_REASONING_FORMAT, type GeminiPart } from './gemini-contents.js';

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
  promptTokensDetails?: Array<{ modality?: string; tokenCount?: number }>;
  candidatesTokensDetails?: Array<{ modality?: string; tokenCount?: number }>;
}

export interface GeminiCandidate {
  index?: number;
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  finishMessage?: string;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
}

/** Gemini's finish reasons in OpenAI's; every safety-like stop is a content filter. */
const FINISH_REASONS: Record<string, string> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  LANGUAGE: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'error',
};

export function geminiFinishReason(native: string | undefined, hasToolCalls: boolean): string | null {
  if (native === undefined || native === 'FINISH_REASON_UNSPECIFIED') return null;
  // Gemini ends a function-calling turn with STOP; OpenAI's clients look for tool_calls.
  if (native === 'STOP' && hasToolCalls) return 'tool_calls';
  return FINISH_REASONS[native] ?? 'stop';
}

export function isContentFilter(finishReason: string | null): boolean {
  return finishReason === 'content_filter';
}

/**
 * Gemini's token counts as the gateway's: promptTokenCount already holds the cached tokens
 * (cachedContentTokenCount) and the tool-use prompt; candidatesTokenCount leaves out the
 * thoughts (thoughtsTokenCount), which OpenAI counts inside completion tokens as reasoning.
 */
export function normalizeGeminiUsage(usage: GeminiUsageMetadata | undefined): NormalizedUsage | undefined {
  if (!usage || typeof usage.promptTokenCount !== 'number') return undefined;
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const normalized: NormalizedUsage = {
    promptTokens: usage.promptTokenCount + (usage.toolUsePromptTokenCount ?? 0),
    completionTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
    cachedTokens: usage.cachedContentTokenCount ?? 0,
    reasoningTokens: thoughts,
    estimated: false,
  };
  for (const detail of usage.promptTokensDetails ?? []) {
    if (detail.modality === 'AUDIO') normalized.promptAudioTokens = detail.tokenCount ?? 0;
    else if (detail.modality === 'VIDEO') normalized.promptVideoTokens = detail.tokenCount ?? 0;
    else if (detail.modality === 'DOCUMENT') normalized.promptFileTokens = detail.tokenCount ?? 0;
  }
  for (const detail of usage.candidatesTokensDetails ?? []) {
    if (detail.modality === 'AUDIO') normalized.completionAudioTokens = detail.tokenCount ?? 0;
    else if (detail.modality === 'IMAGE') normalized.completionImageTokens = detail.tokenCount ?? 0;
  }
  return normalized;
}

/** A tool call id for a Gemini function call: Gemini's own when it gave one, else stable over the call's content. */
export function toolCallId(call: Record<string, unknown>, candidate: number, index: number): string {
  if (typeof call.id === 'string' && call.id.length > 0) return call.id;
  const digest = createHash('sha256')
    .update(`${candidate}:${index}:${String(call.name)}:${JSON.stringify(call.args ?? {})}`)
    .digest('base64url');
  return `call_${digest.slice(0, 24)}`;
}

/** What one candidate's parts say, in the chat-completions message's terms. */
export interface CandidateParts {
  text: string[];
  reasoning: string[];
  reasoningDetails: Array<Record<string, unknown>>;
  toolCalls: NonNullable<ChatChoiceView['message']['tool_calls']>;
}

/**
 * Splits a candidate's parts: thoughts (`thought: true`) are reasoning, function calls tool
 * calls; a thought signature is kept as an encrypted reasoning detail naming its tool call,
 * so the next turn can hand it back (Gemini needs it to go on thinking after a call).
 */
export function readParts(parts: GeminiPart[] | undefined, candidate: number, firstToolIndex = 0): CandidateParts {
  const out: CandidateParts = { text: [], reasoning: [], reasoningDetails: [], toolCalls: [] };
  for (const part of parts ?? []) {
    if (part.functionCall && typeof part.functionCall === 'object') {
      const call = part.functionCall as Record<string, unknown>;
      const index = firstToolIndex + out.toolCalls.length;
      const id = toolCallId(call, candidate, index);
      out.toolCalls.push({
        index,
        id,
        type: 'function',
        function: { name: String(call.name), arguments: JSON.stringify(call.args ?? {}) },
      });
      if (typeof part.thoughtSignature === 'string')
        out.reasoningDetails.push({
          type: 'reasoning.encrypted',
          data: part.thoughtSignature,
          id,
          format: GEMINI_REASONING_FORMAT,
          index: 0,
        });
    } else if (typeof part.text === 'string') {
      if (part.thought === true) {
        out.reasoning.push(part.text);
        out.reasoningDetails.push({ type: 'reasoning.text', text: part.text, format: GEMINI_REASONING_FORMAT, index: 0 });
      } else out.text.push(part.text);
    }
  }
  return out;
}

/** The refusal text of a blocked prompt or a candidate stopped by a safety filter. */
export function refusalFor(reason: string, message?: string): string {
  return message
    ? `Blocked by the provider's safety filters (${reason}): ${message}`
    : `Blocked by the provider's safety filters (${reason})`;
}

/** A generateContent response as chat-completions choices. */
export function normalizeGeminiResponse(
  response: GeminiResponse,
  options: { excludeReasoning: boolean; promptText: PromptText },
): NormalizedCompletion {
  const choices: ChatChoiceView[] = [];
  let generated = '';
  const block = response.promptFeedback?.blockReason;
  if (block && (response.candidates ?? []).length === 0) {
    choices.push({
      index: 0,
      message: { role: 'assistant', content: null, refusal: refusalFor(block, response.promptFeedback?.blockReasonMessage) },
      finish_reason: 'content_filter',
      native_finish_reason: block,
      logprobs: null,
    });
  }
  for (const [position, candidate] of (response.candidates ?? []).entries()) {
    const index = candidate.index ?? position;
    const parts = readParts(candidate.content?.parts, index);
    const finish = geminiFinishReason(candidate.finishReason, parts.toolCalls.length > 0);
    const content = parts.text.length > 0 ? parts.text.join('') : null;
    const filtered = isContentFilter(finish);
    const message: ChatChoiceView['message'] & Record<string, unknown> = {
      role: 'assistant',
      content,
      refusal: filtered && content === null ? refusalFor(String(candidate.finishReason), candidate.finishMessage) : null,
    };
    if (!options.excludeReasoning && parts.reasoning.length > 0) message.reasoning = parts.reasoning.join('');
    const details = options.excludeReasoning
      ? parts.reasoningDetails.filter((d) => d.type === 'reasoning.encrypted')
      : parts.reasoningDetails;
    if (details.length > 0) message.reasoning_details = details;
    if (parts.toolCalls.length > 0) message.tool_calls = parts.toolCalls;
    generated += (content ?? '') + parts.reasoning.join('') + parts.toolCalls.map((call) => call.function.arguments).join('');
    choices.push({ index, message, finish_reason: finish, native_finish_reason: candidate.finishReason ?? null, logprobs: null });
  }
  return {
    upstreamId: response.responseId ?? null,
    systemFingerprint: null,
    serviceTier: null,
    choices,
    usage: normalizeGeminiUsage(response.usageMetadata) ?? {
      promptTokens: estimatePromptText(options.promptText),
      completionTokens: estimateTokens(generated),
      cachedTokens: 0,
      reasoningTokens: 0,
      estimated: true,
    },
  };
}
