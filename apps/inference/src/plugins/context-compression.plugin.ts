import { estimatePromptTokens } from '../pricing/token-estimate.js';
import { PluginOptions } from './plugin-options.js';

type Json = Record<string, unknown>;

export interface ContextCompressionConfig {
  engine: 'middle-out';
}

export function parseContextCompression(raw: Json, where: string): ContextCompressionConfig {
  const options = new PluginOptions(raw, where, 'context-compression', ['engine']);
  options.string('engine', { oneOf: ['middle-out'] });
  return { engine: 'middle-out' };
}

/** What the compression did, for the answer's plugin report. */
export interface Compression {
  droppedMessages: number;
  estimatedTokensBefore: number;
  estimatedTokensAfter: number;
}

/**
 * Middle-out (OpenRouter's engine of that name): when the estimated prompt plus the output
 * budget does not fit the smallest context window among the models the request may be
 * routed to, messages are dropped from the middle of the conversation, the one nearest the
 * middle first, until it fits. The system and developer messages stay, so do the first
 * conversation message (it often states the task) and the last one; a tool result goes with
 * the assistant turn that called it, so no provider sees an orphan. When even that is too
 * long the request goes on as it is and the provider's 400 says so.
 */
export function compressMiddleOut(
  messages: readonly Json[],
  contextLength: number,
  outputBudget: number,
): { messages: Json[]; compression?: Compression } {
  const fits = (candidate: readonly Json[]) => estimatePromptTokens(candidate) + outputBudget <= contextLength;
  const before = estimatePromptTokens(messages);
  if (fits(messages)) return { messages: [...messages] };
  const kept = [...messages];
  for (;;) {
    const droppable = kept
      .map((message, index) => ({ message, index }))
      .filter(
        ({ message, index }) =>
          message.role !== 'system' && message.role !== 'developer' && message.role !== 'tool' && index < kept.length - 1,
      )
      .slice(1);
    if (droppable.length === 0) break;
    const middle = (kept.length - 1) / 2;
    const { index } = droppable.reduce((best, item) => (Math.abs(item.index - middle) < Math.abs(best.index - middle) ? item : best));
    let count = 1;
    // The assistant turn's tool results go with it.
    while (kept[index + count]?.role === 'tool' && index + count < kept.length - 1) count++;
    kept.splice(index, count);
    // A tool result whose assistant turn went is an orphan too.
    while (kept[index]?.role === 'tool' && index < kept.length - 1) kept.splice(index, 1);
    if (fits(kept)) break;
  }
  return {
    messages: kept,
    compression: {
      droppedMessages: messages.length - kept.length,
      estimatedTokensBefore: before,
      estimatedTokensAfter: estimatePromptTokens(kept),
    },
  };
}
