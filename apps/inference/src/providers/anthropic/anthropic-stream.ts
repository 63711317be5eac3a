import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { midStreamFailure, streamErrorFailure, transportFailure, truncatedStreamFailure } from '../../upstream/upstream-failure.js';
import type { NormalizedChunkChoice, NormalizedUsage, StreamEvent } from '../provider-adapter.js';
import { ANTHROPIC_REASONING_FORMAT, type AnthropicBlock } from './anthropic-messages.js';
import { anthropicFinishReason, normalizeAnthropicUsage, reasoningDetail, type AnthropicUsage } from './anthropic-response.js';

interface AnthropicStreamData {
  type?: string;
  index?: number;
  message?: { usage?: AnthropicUsage | null };
  content_block?: AnthropicBlock;
  delta?: Record<string, unknown> & { type?: string; stop_reason?: string | null };
  usage?: AnthropicUsage | null;
  error?: { type?: unknown; message?: unknown };
}

/**
 * Anthropic's Messages SSE stream as StreamEvents in OpenAI's chunk shape:
 * message_start -> a role chunk; text_delta -> content; tool_use start -> a tool call with
 * index (counted over tool calls, as OpenAI does), id, name and empty arguments, then each
 * input_json_delta -> an arguments fragment; thinking_delta / signature_delta -> reasoning
 * and reasoning_details; message_delta -> the finish chunk; message_stop -> the usage event.
 * An `error` event, a frame that is not JSON, or an end without message_stop throws a
 * non-retryable UpstreamFailure (the answer has begun and cannot move to another endpoint).
 */
export async function* anthropicStreamEvents(
  provider: string,
  text: AsyncIterable<string>,
  options: { excludeReasoning: boolean },
): AsyncGenerator<StreamEvent> {
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  const state = new StreamState(options.excludeReasoning);
  for await (const piece of text) {
    // After message_stop the rest is drained, not parsed, so the connection returns to the pool.
    if (state.done) continue;
    parser.feed(piece);
    for (let i = 0; i < messages.length && !state.done; i++) {
      const data = parseData(provider, messages[i]!.data);
      if (data.type === 'error' || messages[i]!.event === 'error') throw streamErrorFailure(provider, data.error);
      const choice = state.apply(data);
      if (choice) yield { type: 'chunk', choices: [choice] };
    }
    messages.length = 0;
  }
  if (!state.done) throw truncatedStreamFailure(provider);
  const usage = state.usage();
  if (usage) yield { type: 'usage', usage };
}

/** What the stream has said so far: usage, and which content block is which tool call. */
class StreamState {
  done = false;
  private readonly usageSoFar: AnthropicUsage = {};
  private readonly toolIndexByBlock = new Map<number, number>();

  constructor(private readonly excludeReasoning: boolean) {}

  usage(): NormalizedUsage | undefined {
    return normalizeAnthropicUsage(this.usageSoFar);
  }

  /** The chunk choice a stream event becomes, if any. */
  apply(data: AnthropicStreamData): NormalizedChunkChoice | undefined {
    switch (data.type) {
      case 'message_start':
        this.mergeUsage(data.message?.usage);
        return choice({ role: 'assistant', content: '' });
      case 'content_block_start':
        return this.blockStart(data.index ?? 0, data.content_block);
      case 'content_block_delta':
        return this.blockDelta(data.index ?? 0, data.delta ?? {});
      case 'message_delta': {
        // message_delta usage is cumulative; newer API versions repeat the input counts too.
        this.mergeUsage(data.usage);
        const native = data.delta?.stop_reason ?? null;
        return native === null ? undefined : { index: 0, delta: {}, finish_reason: anthropicFinishReason(native), native_finish_reason: native };
      }
      case 'message_stop':
        this.done = true;
        return undefined;
      default:
        // ping, content_block_stop and event types added later carry nothing to relay.
        return undefined;
    }
  }

  private blockStart(blockIndex: number, block: AnthropicBlock | undefined): NormalizedChunkChoice | undefined {
    if (!block) return undefined;
    if (block.type === 'tool_use') {
      const toolIndex = this.toolIndexByBlock.size;
      this.toolIndexByBlock.set(blockIndex, toolIndex);
      return choice({ tool_calls: [{ index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] });
    }
    if (block.type === 'text' && typeof block.text === 'string' && block.text.length > 0) return choice({ content: block.text });
    if (block.type === 'redacted_thinking' && !this.excludeReasoning) return choice({ reasoning_details: [reasoningDetail(block, blockIndex)] });
    return undefined;
  }

  private blockDelta(blockIndex: number, delta: Record<string, unknown>): NormalizedChunkChoice | undefined {
    switch (delta.type) {
      case 'text_delta':
        return typeof delta.text === 'string' && delta.text.length > 0 ? choice({ content: delta.text }) : undefined;
      case 'input_json_delta': {
        const toolIndex = this.toolIndexByBlock.get(blockIndex);
        const fragment = delta.partial_json;
        if (toolIndex === undefined || typeof fragment !== 'string' || fragment.length === 0) return undefined;
        return choice({ tool_calls: [{ index: toolIndex, function: { arguments: fragment } }] });
      }
      case 'thinking_delta':
        if (this.excludeReasoning || typeof delta.thinking !== 'string') return undefined;
        return choice({
          reasoning: delta.thinking,
          reasoning_details: [{ type: 'reasoning.text', text: delta.thinking, format: ANTHROPIC_REASONING_FORMAT, index: blockIndex }],
        });
      case 'signature_delta':
        if (this.excludeReasoning || typeof delta.signature !== 'string') return undefined;
        return choice({ reasoning_details: [{ type: 'reasoning.text', signature: delta.signature, format: ANTHROPIC_REASONING_FORMAT, index: blockIndex }] });
      default:
        return undefined;
    }
  }

  private mergeUsage(usage: AnthropicUsage | null | undefined): void {
    if (!usage) return;
    for (const [field, value] of Object.entries(usage) as Array<[keyof AnthropicUsage, unknown]>) {
      if (typeof value === 'number') (this.usageSoFar as Record<string, number>)[field] = value;
    }
  }
}

function choice(delta: Record<string, unknown>): NormalizedChunkChoice {
  return { index: 0, delta, finish_reason: null, native_finish_reason: null };
}

function parseData(provider: string, data: string): AnthropicStreamData {
  try {
    const parsed: unknown = JSON.parse(data);
    if (parsed !== null && typeof parsed === 'object') return parsed as AnthropicStreamData;
  } catch {
    // reported below
  }
  throw midStreamFailure(transportFailure(provider, 'protocol', 'sent a stream event that is not JSON'));
}
