import type { NormalizedChunkChoice, StreamEvent } from '../provider-adapter.js';
import { sseJsonFrames } from '../sse-json-frames.js';
import { GEMINI_REASONING_FORMAT, type GeminiPart } from './gemini-contents.js';
import { googleStreamFailure, type GoogleErrorBody } from './gemini-errors.js';
import { PartialArgsWriter, type PartialArg } from './gemini-partial-args.js';
import {
  geminiFinishReason,
  isContentFilter,
  normalizeGeminiUsage,
  readParts,
  refusalFor,
  toolCallId,
  type GeminiResponse,
} from './gemini-response.js';

type GeminiStreamData = GeminiResponse & GoogleErrorBody;

/** A frame that ends the answer: a candidate's finishReason, or a blocked prompt. */
function isTerminal(data: GeminiStreamData): boolean {
  return Boolean(data.promptFeedback?.blockReason) || (data.candidates ?? []).some((c) => c.finishReason !== undefined);
}

type ToolCallDelta = { index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } };

/** A function call Vertex is streaming (asked with streamFunctionCallArguments): its tool index and arguments so far. */
interface StreamedCall {
  index: number;
  writer: PartialArgsWriter;
}

/**
 * Takes a candidate's streamed function-call parts (a name with `willContinue`, then
 * `partialArgs`, then one without `willContinue`) as tool-call argument deltas; whole parts are
 * left for readParts. Thought signatures of streamed calls become encrypted reasoning details.
 */
function takeStreamedCalls(
  parts: GeminiPart[] | undefined,
  candidate: number,
  firstToolIndex: number,
  open: Map<number, StreamedCall>,
): { whole: GeminiPart[]; deltas: ToolCallDelta[]; started: number; details: Array<Record<string, unknown>> } {
  const out = { whole: [] as GeminiPart[], deltas: [] as ToolCallDelta[], started: 0, details: [] as Array<Record<string, unknown>> };
  for (const part of parts ?? []) {
    const call = part.functionCall as (Record<string, unknown> & { partialArgs?: PartialArg[] }) | undefined;
    let streamed = open.get(candidate);
    if (!call || (!streamed && call.willContinue !== true)) {
      out.whole.push(part);
      continue;
    }
    let delta: ToolCallDelta;
    if (streamed) delta = { index: streamed.index, function: { arguments: '' } };
    else {
      const index = firstToolIndex + out.started;
      out.started += 1;
      streamed = { index, writer: new PartialArgsWriter() };
      open.set(candidate, streamed);
      const id = toolCallId({ id: call.id, name: call.name }, candidate, index);
      delta = { index, id, type: 'function', function: { name: String(call.name), arguments: '' } };
      if (typeof part.thoughtSignature === 'string')
        out.details.push({ type: 'reasoning.encrypted', data: part.thoughtSignature, id, format: GEMINI_REASONING_FORMAT, index: 0 });
    }
    for (const arg of call.partialArgs ?? []) delta.function.arguments += streamed.writer.write(arg);
    if (call.willContinue !== true) {
      delta.function.arguments += streamed.writer.end();
      open.delete(candidate);
    }
    out.deltas.push(delta);
  }
  return out;
}

/**
 * `streamGenerateContent?alt=sse` as StreamEvents in OpenAI's chunk shape. Each frame is a
 * whole GenerateContentResponse: its text parts are content deltas, thoughts reasoning deltas,
 * function calls whole tool calls (the Gemini API sends them complete; Vertex AI, when asked,
 * streams their arguments by JSON path, written here as JSON text deltas), the
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
  const streamedCalls = new Map<number, StreamedCall>();
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
      const streamed = takeStreamedCalls(candidate.content?.parts, index, before, streamedCalls);
      const parts = readParts(streamed.whole, index, before + streamed.started);
      toolCounts.set(index, before + streamed.started + parts.toolCalls.length);
      const delta: Record<string, unknown> = {};
      if (!started.has(index)) {
        started.add(index);
        delta.role = 'assistant';
      }
      if (parts.text.length > 0) delta.content = parts.text.join('');
      if (!options.excludeReasoning && parts.reasoning.length > 0) delta.reasoning = parts.reasoning.join('');
      const allDetails = [...streamed.details, ...parts.reasoningDetails];
      const details = options.excludeReasoning ? allDetails.filter((d) => d.type === 'reasoning.encrypted') : allDetails;
      if (details.length > 0) delta.reasoning_details = details;
      const toolCalls = [...streamed.deltas, ...parts.toolCalls];
      if (toolCalls.length > 0) delta.tool_calls = toolCalls;
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
