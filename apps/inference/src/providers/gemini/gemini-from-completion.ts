import type { ChatChoiceView } from '@gw/contracts';
import type { NormalizedChunkChoice, NormalizedCompletion, NormalizedUsage, StreamEvent } from '../provider-adapter.js';
import { GEMINI_REASONING_FORMAT, type GeminiPart } from './gemini-contents.js';

/**
 * The reverse of the adapter's response codec: a chat answer (from any endpoint) rendered as
 * Gemini's GenerateContentResponse for Google's SDK at the front door.
 */
const FINISH_REASONS: Record<string, string> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  error: 'OTHER',
};

function geminiFinishReasonOf(finish: string | null | undefined): string | undefined {
  if (finish === null || finish === undefined) return undefined;
  return FINISH_REASONS[finish] ?? 'OTHER';
}

/** The gateway's counts in Gemini's words: thoughts apart from the candidates, cached inside the prompt. */
function geminiUsageOf(usage: NormalizedUsage): Record<string, number> {
  const thoughts = Math.min(usage.reasoningTokens, usage.completionTokens);
  const out: Record<string, number> = {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: usage.completionTokens - thoughts,
    totalTokenCount: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedTokens > 0) out.cachedContentTokenCount = usage.cachedTokens;
  if (thoughts > 0) out.thoughtsTokenCount = thoughts;
  return out;
}

/** Thought signatures by tool call id, as the adapter kept them in reasoning_details. */
function signatures(details: unknown): Map<string, string> {
  const byId = new Map<string, string>();
  for (const detail of Array.isArray(details) ? (details as Array<Record<string, unknown>>) : []) {
    if (detail?.format === GEMINI_REASONING_FORMAT && typeof detail.id === 'string' && typeof detail.data === 'string')
      byId.set(detail.id, detail.data);
  }
  return byId;
}

function callPart(call: { id?: string; function: { name: string; arguments: string } }, signature: string | undefined): GeminiPart {
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments || '{}');
  } catch {
    args = { arguments: call.function.arguments };
  }
  const part: GeminiPart = { functionCall: { id: call.id, name: call.function.name, args } };
  if (signature) part.thoughtSignature = signature;
  return part;
}

function candidateOf(choice: ChatChoiceView): Record<string, unknown> {
  const message = choice.message as ChatChoiceView['message'] & { reasoning?: string | null; reasoning_details?: unknown };
  const parts: GeminiPart[] = [];
  if (message.reasoning) parts.push({ text: message.reasoning, thought: true });
  if (message.content) parts.push({ text: message.content });
  else if (message.refusal) parts.push({ text: message.refusal });
  const signed = signatures(message.reasoning_details);
  for (const call of message.tool_calls ?? []) parts.push(callPart(call, signed.get(call.id)));
  const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index: choice.index };
  const finish = geminiFinishReasonOf(choice.finish_reason);
  if (finish) candidate.finishReason = finish;
  return candidate;
}

export function geminiResponseOf(
  completion: Pick<NormalizedCompletion, 'choices'>,
  usage: NormalizedUsage,
  ids: { model: string; responseId: string },
): Record<string, unknown> {
  return {
    candidates: completion.choices.map(candidateOf),
    usageMetadata: geminiUsageOf(usage),
    modelVersion: ids.model,
    responseId: ids.responseId,
  };
}

/**
 * A chat stream as Gemini's SSE frames: text and thoughts go out as they come; tool calls are
 * gathered (their arguments arrive in fragments) and go out whole, as Gemini sends them, with the
 * finish reason; the usage frame comes last, once the price is known.
 */
export class ChunksToGeminiFrames {
  private readonly calls = new Map<number, Map<number, { id?: string; name: string; arguments: string }>>();
  private readonly signed = new Map<string, string>();
  private readonly finishes = new Map<number, string>();

  constructor(private readonly ids: { model: string; responseId: string }) {}

  /** The frames (GenerateContentResponse objects) one stream event becomes. */
  add(event: StreamEvent): Array<Record<string, unknown>> {
    if (event.type !== 'chunk') return [];
    const candidates = event.choices.map((choice) => this.candidate(choice)).filter((c): c is Record<string, unknown> => c !== undefined);
    return candidates.length > 0 ? [this.frame(candidates)] : [];
  }

  /** The last frame: every candidate's gathered tool calls and finish reason, and the usage. */
  finish(usage: NormalizedUsage): Record<string, unknown> {
    const indexes = new Set([...this.calls.keys(), ...this.finishes.keys()]);
    if (indexes.size === 0) indexes.add(0);
    const candidates = [...indexes].sort().map((index) => {
      const calls = [...(this.calls.get(index)?.entries() ?? [])].sort(([a], [b]) => a - b).map(([, call]) => call);
      const parts = calls.map((call) => callPart({ id: call.id, function: call }, call.id ? this.signed.get(call.id) : undefined));
      return { content: { role: 'model', parts }, index, finishReason: geminiFinishReasonOf(this.finishes.get(index) ?? 'stop') };
    });
    return { ...this.frame(candidates), usageMetadata: geminiUsageOf(usage) };
  }

  private candidate(choice: NormalizedChunkChoice): Record<string, unknown> | undefined {
    const delta = choice.delta as Record<string, unknown>;
    for (const [id, signature] of signatures(delta.reasoning_details)) this.signed.set(id, signature);
    for (const call of (delta.tool_calls ?? []) as Array<Record<string, unknown>>) this.gather(choice.index, call);
    if (choice.finish_reason) this.finishes.set(choice.index, choice.finish_reason);
    const parts: GeminiPart[] = [];
    if (typeof delta.reasoning === 'string' && delta.reasoning) parts.push({ text: delta.reasoning, thought: true });
    if (typeof delta.content === 'string' && delta.content) parts.push({ text: delta.content });
    if (typeof delta.refusal === 'string' && delta.refusal) parts.push({ text: delta.refusal });
    return parts.length > 0 ? { content: { role: 'model', parts }, index: choice.index } : undefined;
  }

  private gather(choiceIndex: number, call: Record<string, unknown>): void {
    const byIndex = this.calls.get(choiceIndex) ?? new Map<number, { id?: string; name: string; arguments: string }>();
    this.calls.set(choiceIndex, byIndex);
    const index = typeof call.index === 'number' ? call.index : byIndex.size;
    const known = byIndex.get(index) ?? { name: '', arguments: '' };
    const fn = (call.function ?? {}) as { name?: string; arguments?: string };
    if (typeof call.id === 'string') known.id = call.id;
    if (fn.name) known.name = fn.name;
    known.arguments += fn.arguments ?? '';
    byIndex.set(index, known);
  }

  private frame(candidates: Array<Record<string, unknown>>): Record<string, unknown> {
    return { candidates, modelVersion: this.ids.model, responseId: this.ids.responseId };
  }
}
