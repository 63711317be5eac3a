import type { NormalizedChunkChoice, StreamEvent } from '../provider-adapter.js';
import { sseJsonFrames } from '../sse-json-frames.js';
import { googleStreamFailure, type GoogleErrorBody } from './gemini-errors.js';
import {
  geminiFinishReason,
  isContentFilter,
  normalizeGeminiUsage,
  readParts,
  refusalFor,
  type GeminiResponse,
} from './gemini-response.js';

type GeminiStreamData = GeminiResponse & GoogleErrorBody;

/** A frame that ends the answer: a candidate's finishReason, or a blocked prompt. */
function isTerminal(data: GeminiStreamData): boolean {
  return Boolean(data.promptFeedback?.blockReason) || (data.candidates ?? []).some((c) => c.finishReason !== undefined);
}

/**
 * `streamGenerateContent?alt=sse` as StreamEvents in OpenAI's chunk shape. Each frame is a
 * whole GenerateContentResponse: its text parts are content deltas, thoughts reasoning deltas,
 * function calls whole tool calls (Gemini sends them complete, arguments in one fragment), the
 * finish reason the finish chunk; the last frame's usageMetadata is the usage. Gemini has no end
 * marker: a stream that closes before a finish reason is cut, and an `{error}` frame fails it.
 */
export async function* geminiStreamEvents(
  provider: string,
  text: AsyncIterable<string>,
  options: { excludeReasoning: boolean },
): AsyncGenerator<StreamEvent> {
  let usage: GeminiResponse['usageMetadata'];
  const started = new Set<number>();
  const toolCounts = new Map<number, number>();
  const frames = sseJsonFrames<GeminiStreamData>(provider, text, { isTerminal: (frame) => isTerminal(frame.data) });
  for await (const { data } of frames) {
    if (data.error) throw googleStreamFailure(provider, data.error);
    if (data.usageMetadata) usage = data.usageMetadata;
    const choices: NormalizedChunkChoice[] = [];
    const block = data.promptFeedback?.blockReason;
    if (block && (data.candidates ?? []).length === 0) {
      choices.push({
        index: 0,
        delta: { role: 'assistant', content: null, refusal: refusalFor(block, data.promptFeedback?.blockReasonMessage) },
        finish_reason: 'content_filter',
        native_finish_reason: block,
      });
    }
    for (const [position, candidate] of (data.candidates ?? []).entries()) {
      const index = candidate.index ?? position;
      const before = toolCounts.get(index) ?? 0;
      const parts = readParts(candidate.content?.parts, index, before);
      toolCounts.set(index, before + parts.toolCalls.length);
      const delta: Record<string, unknown> = {};
      if (!started.has(index)) {
        started.add(index);
        delta.role = 'assistant';
      }
      if (parts.text.length > 0) delta.content = parts.text.join('');
      if (!options.excludeReasoning && parts.reasoning.length > 0) delta.reasoning = parts.reasoning.join('');
      const details = options.excludeReasoning
        ? parts.reasoningDetails.filter((d) => d.type === 'reasoning.encrypted')
        : parts.reasoningDetails;
      if (details.length > 0) delta.reasoning_details = details;
      if (parts.toolCalls.length > 0) delta.tool_calls = parts.toolCalls;
      const finish = geminiFinishReason(candidate.finishReason, (toolCounts.get(index) ?? 0) > 0);
      if (isContentFilter(finish) && parts.text.length === 0)
        delta.refusal = refusalFor(String(candidate.finishReason), candidate.finishMessage);
      if (Object.keys(delta).length > 0 || finish !== null)
        choices.push({ index, delta, finish_reason: finish, native_finish_reason: candidate.finishReason ?? null });
    }
    if (choices.length > 0) yield { type: 'chunk', choices };
  }
  const normalized = normalizeGeminiUsage(usage);
  if (normalized) yield { type: 'usage', usage: normalized };
}
