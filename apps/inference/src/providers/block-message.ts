import type { AnnotationView, ChatChoiceView, ChatToolCallView } from '@gw/contracts';
import { estimatePromptText, estimateTokens, type PromptText } from '../pricing/token-estimate.js';
import type { NormalizedUsage } from './provider-adapter.js';

/** What a Claude-shaped answer's content blocks (Anthropic Messages, Bedrock Converse) were read into. */
export interface AnswerBlocks {
  text: string[];
  reasoning: string[];
  reasoningDetails: Array<Record<string, unknown>>;
  toolCalls: ChatToolCallView[];
  annotations?: AnnotationView[];
}

/** The choice's assistant message: reasoning only where the blocks had some and the caller did not exclude it. */
export function messageOfBlocks(blocks: AnswerBlocks, excludeReasoning: boolean): ChatChoiceView['message'] & Record<string, unknown> {
  const { text, reasoning, reasoningDetails, toolCalls, annotations } = blocks;
  const message: ChatChoiceView['message'] & Record<string, unknown> = {
    role: 'assistant',
    content: text.length > 0 ? text.join('') : null,
    refusal: null,
  };
  if (!excludeReasoning && reasoningDetails.length > 0) {
    message.reasoning = reasoning.length > 0 ? reasoning.join('') : null;
    message.reasoning_details = reasoningDetails;
  }
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (annotations && annotations.length > 0) message.annotations = annotations;
  return message;
}

/** The usage of an answer whose host reported none: estimated from the prompt and the blocks' own text. */
export function estimatedUsageOfBlocks(blocks: AnswerBlocks, promptText: PromptText): NormalizedUsage {
  const { text, reasoning, toolCalls } = blocks;
  return {
    promptTokens: estimatePromptText(promptText),
    completionTokens: estimateTokens(text.join('') + reasoning.join('') + toolCalls.map((call) => call.function.arguments).join('')),
    cachedTokens: 0,
    reasoningTokens: 0,
    estimated: true,
  };
}
