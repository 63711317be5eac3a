import { estimatePromptTokens } from '../pricing/token-estimate.js';

type Json = Record<string, unknown>;

/**
 * `truncation: "auto"` (spec §4.5): drops the oldest conversation messages until the
 * estimated prompt plus the output budget fits the context window. System and developer
 * messages stay, and so does the last message; tool results whose call was dropped go with
 * it (a provider refuses an orphan tool message). `disabled` leaves the conversation whole:
 * the provider, which counts exactly, answers 400 `context_length_exceeded` when it does
 * not fit. Returns the messages unchanged when they fit.
 */
export function fitToContext(messages: readonly Json[], contextLength: number, outputBudget: number): Json[] {
  const fits = (candidate: readonly Json[]) => estimatePromptTokens(candidate) + outputBudget <= contextLength;
  if (fits(messages)) return [...messages];
  const kept = [...messages];
  for (;;) {
    const oldest = kept.findIndex((message, index) => index < kept.length - 1 && message.role !== 'system' && message.role !== 'developer');
    if (oldest < 0) return kept;
    kept.splice(oldest, 1);
    // A tool message whose assistant turn is gone would be an orphan.
    while (kept[oldest]?.role === 'tool' && oldest < kept.length - 1) kept.splice(oldest, 1);
    if (fits(kept)) return kept;
  }
}
