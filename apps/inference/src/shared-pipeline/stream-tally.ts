import { completionTokenBound, estimatePromptTokens, estimateTokensOfLength } from '../pricing/token-estimate.js';
import type { NormalizedUsage, StreamEvent } from '../providers/provider-adapter.js';
import type { GenerationFinish } from '../usage/generation-finish.js';
import type { KeptText } from '../content/kept-text.js';

/**
 * What a stream produced, to price it at its end: the provider's own counts when it sent a
 * usage event, otherwise (a stream cut short, or a host that ignores `include_usage`) an
 * estimate from the characters generated so far, flagged `estimated`, never above the request's
 * maximum, with what it was made from in the generation record's usage details.
 */
export class StreamTally {
  private providerUsage: NormalizedUsage | undefined;
  private generatedCharacters = 0;
  private readonly ending: GenerationFinish = {};
  /** The first choice's text and reasoning, kept only for a workspace that logs content. */
  kept: KeptText | undefined;
  chunks = 0;

  add(event: StreamEvent): void {
    if (event.type === 'usage') {
      this.providerUsage = event.usage;
      return;
    }
    this.chunks++;
    if (event.serviceTier) this.ending.serviceTier = event.serviceTier;
    for (const { delta, index, finish_reason, native_finish_reason } of event.choices) {
      if (index === 0 && finish_reason) this.ending.finishReason = finish_reason;
      if (index === 0 && native_finish_reason) this.ending.nativeFinishReason = native_finish_reason;
      if (index === 0) this.kept?.add(delta.content, delta.reasoning);
      this.generatedCharacters += lengthOf(delta.content) + lengthOf(delta.reasoning) + lengthOf(delta.refusal);
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } } | null>) {
          this.generatedCharacters += lengthOf(call?.function?.name) + lengthOf(call?.function?.arguments);
        }
      }
    }
  }

  /** How the stream ended, as far as its chunks said (the first choice's finish reason). */
  finish(cancelled = false): GenerationFinish {
    return { ...this.ending, ...(cancelled ? { cancelled } : {}) };
  }

  /**
   * `body` is the chat request as sent: its messages for the prompt estimate, and its maximum
   * (`completionTokenBound`), above which a completion estimate is never billed: characters over
   * four is a rule of thumb, and the provider could not have generated more than the maximum.
   */
  usage(body: Record<string, unknown>): NormalizedUsage {
    if (this.providerUsage) return this.providerUsage;
    const estimate = estimateTokensOfLength(this.generatedCharacters);
    const bound = completionTokenBound(body);
    const capped = bound !== undefined && estimate > bound;
    return {
      promptTokens: estimatePromptTokens(body.messages),
      completionTokens: capped ? bound : estimate,
      cachedTokens: 0,
      reasoningTokens: 0,
      estimated: true,
      estimatedFromCharacters: this.generatedCharacters,
      ...(capped ? { estimateCappedAt: bound } : {}),
    };
  }
}

function lengthOf(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}
