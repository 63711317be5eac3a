import type { ContentBlock, ConverseCommandOutput, TokenUsage } from '@aws-sdk/client-bedrock-runtime';
import type { ChatChoiceView } from '@gw/contracts';
import type { PromptText } from '../../pricing/token-estimate.js';
import { estimatedUsageOfBlocks, messageOfBlocks } from '../block-message.js';
import type { NormalizedCompletion, NormalizedUsage } from '../provider-adapter.js';

/** Marks the reasoning details that come from Bedrock reasoning blocks (Claude's signed thinking). */
export const BEDROCK_REASONING_FORMAT = 'anthropic-claude-v1';

/** Converse stop reasons in OpenAI's finish reasons; the native one is kept beside it. */
const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
  malformed_model_output: 'error',
  malformed_tool_use: 'error',
};

export function bedrockFinishReason(native: string | null | undefined): string | null {
  if (native === null || native === undefined) return null;
  return FINISH_REASONS[native] ?? 'stop';
}

/**
 * Converse counts as Anthropic does: `inputTokens` excludes the cache reads and writes, which
 * the prompt tokens include (priced apart through cached / cache-write tokens).
 */
export function normalizeBedrockUsage(usage: TokenUsage | undefined): NormalizedUsage | undefined {
  if (!usage || typeof usage.inputTokens !== 'number' || typeof usage.outputTokens !== 'number') return undefined;
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  return {
    promptTokens: usage.inputTokens + cacheRead + cacheWrite,
    completionTokens: usage.outputTokens,
    cachedTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: 0,
    estimated: false,
  };
}

/** A Converse answer as one chat-completions choice. */
export function normalizeConverseOutput(
  output: Pick<ConverseCommandOutput, 'output' | 'stopReason' | 'usage'> & { $metadata?: { requestId?: string } },
  options: { excludeReasoning: boolean; promptText: PromptText },
): NormalizedCompletion {
  const blocks: ContentBlock[] = output.output?.message?.content ?? [];
  const text: string[] = [];
  const reasoning: string[] = [];
  const reasoningDetails: Array<Record<string, unknown>> = [];
  const toolCalls: NonNullable<ChatChoiceView['message']['tool_calls']> = [];
  for (const block of blocks) {
    if (typeof block.text === 'string') text.push(block.text);
    else if (block.toolUse) {
      toolCalls.push({
        index: toolCalls.length,
        id: String(block.toolUse.toolUseId),
        type: 'function',
        function: { name: String(block.toolUse.name), arguments: JSON.stringify(block.toolUse.input ?? {}) },
      });
    } else if (block.reasoningContent?.reasoningText) {
      const { text: thought, signature } = block.reasoningContent.reasoningText;
      reasoning.push(thought ?? '');
      reasoningDetails.push({
        type: 'reasoning.text',
        text: thought ?? '',
        signature: signature ?? null,
        format: BEDROCK_REASONING_FORMAT,
        index: reasoningDetails.length,
      });
    } else if (block.reasoningContent?.redactedContent) {
      // Base64 in Converse's JSON as Bedrock sends it (BedrockCalls); bytes from the SDK's own deserializer.
      const redacted = block.reasoningContent.redactedContent as Uint8Array | string;
      const data = typeof redacted === 'string' ? redacted : Buffer.from(redacted).toString('base64');
      reasoningDetails.push({ type: 'reasoning.encrypted', data, format: BEDROCK_REASONING_FORMAT, index: reasoningDetails.length });
    }
  }
  const native = output.stopReason ?? null;
  const answer = { text, reasoning, reasoningDetails, toolCalls };
  const message = messageOfBlocks(answer, options.excludeReasoning);
  return {
    upstreamId: output.$metadata?.requestId ?? null,
    systemFingerprint: null,
    serviceTier: null,
    choices: [{ index: 0, message, finish_reason: bedrockFinishReason(native), native_finish_reason: native, logprobs: null }],
    usage: normalizeBedrockUsage(output.usage) ?? estimatedUsageOfBlocks(answer, options.promptText),
  };
}
