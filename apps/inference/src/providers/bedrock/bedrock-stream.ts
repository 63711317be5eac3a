import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { truncatedStreamFailure } from '../../upstream/upstream-failure.js';
import type { NormalizedChunkChoice, NormalizedUsage, StreamEvent } from '../provider-adapter.js';
import { bedrockStreamFailure } from './bedrock-errors.js';
import { BEDROCK_REASONING_FORMAT, bedrockFinishReason, normalizeBedrockUsage } from './bedrock-response.js';

/** The exception members a ConverseStream may carry in place of an event. */
const EXCEPTION_EVENTS = [
  'internalServerException',
  'modelStreamErrorException',
  'validationException',
  'throttlingException',
  'serviceUnavailableException',
] as const;

const EXCEPTION_NAMES: Record<(typeof EXCEPTION_EVENTS)[number], string> = {
  internalServerException: 'InternalServerException',
  modelStreamErrorException: 'ModelStreamErrorException',
  validationException: 'ValidationException',
  throttlingException: 'ThrottlingException',
  serviceUnavailableException: 'ServiceUnavailableException',
};

/**
 * ConverseStream events (already decoded from the event-stream framing by the SDK) as
 * StreamEvents in OpenAI's chunk shape: messageStart -> a role chunk; a toolUse block start ->
 * a tool call (id, name, empty arguments), its input deltas -> arguments fragments; text and
 * reasoning deltas -> content and reasoning; messageStop -> the finish chunk; metadata -> usage.
 * An exception, or an end before messageStop, throws a non-retryable UpstreamFailure.
 */
export async function* bedrockStreamEvents(
  provider: string,
  events: AsyncIterable<ConverseStreamOutput>,
  options: { excludeReasoning: boolean },
): AsyncGenerator<StreamEvent> {
  const toolIndexByBlock = new Map<number, number>();
  let stopped = false;
  let usage: NormalizedUsage | undefined;
  try {
    for await (const event of events) {
      const exception = EXCEPTION_EVENTS.find((name) => event[name as keyof ConverseStreamOutput] !== undefined);
      if (exception) {
        const detail = event[exception as keyof ConverseStreamOutput] as { message?: string };
        throw bedrockStreamFailure(provider, { name: EXCEPTION_NAMES[exception], message: detail?.message });
      }
      if (event.messageStart) yield chunk({ role: 'assistant', content: '' });
      else if (event.contentBlockStart?.start?.toolUse) {
        const blockIndex = event.contentBlockStart.contentBlockIndex ?? 0;
        const toolIndex = toolIndexByBlock.size;
        toolIndexByBlock.set(blockIndex, toolIndex);
        const { toolUseId, name } = event.contentBlockStart.start.toolUse;
        yield chunk({ tool_calls: [{ index: toolIndex, id: toolUseId, type: 'function', function: { name, arguments: '' } }] });
      } else if (event.contentBlockDelta?.delta) {
        const blockIndex = event.contentBlockDelta.contentBlockIndex ?? 0;
        const delta = event.contentBlockDelta.delta;
        const toolIndex = toolIndexByBlock.get(blockIndex);
        if (typeof delta.text === 'string' && delta.text.length > 0) yield chunk({ content: delta.text });
        else if (delta.toolUse?.input && toolIndex !== undefined)
          yield chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.toolUse.input } }] });
        else if (delta.reasoningContent && !options.excludeReasoning) {
          const reasoningChunk = reasoningDelta(delta.reasoningContent, blockIndex);
          if (reasoningChunk) yield reasoningChunk;
        }
      } else if (event.messageStop) {
        stopped = true;
        const native = event.messageStop.stopReason ?? null;
        yield {
          type: 'chunk',
          choices: [{ index: 0, delta: {}, finish_reason: bedrockFinishReason(native), native_finish_reason: native }],
        };
      } else if (event.metadata) usage = normalizeBedrockUsage(event.metadata.usage);
    }
  } catch (error) {
    if ((error as { name?: string }).name === 'UpstreamFailure') throw error;
    throw bedrockStreamFailure(provider, error);
  }
  if (!stopped) throw truncatedStreamFailure(provider);
  if (usage) yield { type: 'usage', usage };
}

function reasoningDelta(
  delta: { text?: string; signature?: string; redactedContent?: Uint8Array | string },
  blockIndex: number,
): StreamEvent | undefined {
  if (typeof delta.text === 'string') {
    return chunk({
      reasoning: delta.text,
      reasoning_details: [{ type: 'reasoning.text', text: delta.text, format: BEDROCK_REASONING_FORMAT, index: blockIndex }],
    });
  }
  if (typeof delta.signature === 'string')
    return chunk({
      reasoning_details: [{ type: 'reasoning.text', signature: delta.signature, format: BEDROCK_REASONING_FORMAT, index: blockIndex }],
    });
  if (delta.redactedContent) {
    // Base64 in the event's JSON as Bedrock sends it (JsonEventStreamMarshaller); bytes from the SDK's own decoder.
    const data = typeof delta.redactedContent === 'string' ? delta.redactedContent : Buffer.from(delta.redactedContent).toString('base64');
    return chunk({ reasoning_details: [{ type: 'reasoning.encrypted', data, format: BEDROCK_REASONING_FORMAT, index: blockIndex }] });
  }
  return undefined;
}

function chunk(delta: Record<string, unknown>): StreamEvent {
  const choice: NormalizedChunkChoice = { index: 0, delta, finish_reason: null, native_finish_reason: null };
  return { type: 'chunk', choices: [choice] };
}
