import { reportedTier } from '../../routing/service-tier.js';
import { streamErrorFailure } from '../../upstream/upstream-failure.js';
import type { NormalizedChunkChoice, NormalizedUsage, StreamEvent } from '../provider-adapter.js';
import { sseJsonFrames } from '../sse-json-frames.js';
import { ANTHROPIC_REASONING_FORMAT, type AnthropicBlock } from './anthropic-messages.js';
import { anthropicFinishReason, normalizeAnthropicUsage, reasoningDetail, type AnthropicUsage } from './anthropic-response.js';

export interface AnthropicStreamData {
  type?: string;
  index?: number;
  message?: Record<string, unknown> & { usage?: AnthropicUsage | null };
  content_block?: AnthropicBlock;
  delta?: Record<string, unknown> & { type?: string; stop_reason?: string | null };
  usage?: AnthropicUsage | null;
  error?: { type?: unknown; message?: unknown };
}

/**
 * Anthropic's Messages SSE stream as its own events, parsed: every event up to and including
 * message_stop (pings too). An `error` event, a frame that is not JSON, or an end without
 * message_stop throws a non-retryable UpstreamFailure (the answer has begun and cannot move
 * to another endpoint). The `/v1/messages` front door relays these as they are.
 */
export async function* anthropicRawEvents(provider: string, text: AsyncIterable<string>): AsyncGenerator<AnthropicStreamData> {
  const frames = sseJsonFrames<AnthropicStreamData>(provider, text, { isTerminal: (frame) => frame.data.type === 'message_stop' });
  for await (const { event, data } of frames) {
    if (data.type === 'error' || event === 'error') throw streamErrorFailure(provider, data.error);
    yield data;
  }
}

/** Anthropic's cumulative usage over a stream: message_start's, then each message_delta's counts. */
export class AnthropicUsageTally {
  readonly counts: AnthropicUsage = {};

  add(data: AnthropicStreamData): void {
    const usage = data.type === 'message_start' ? data.message?.usage : data.type === 'message_delta' ? data.usage : undefined;
    if (!usage) return;
    // message_delta usage is cumulative; newer API versions repeat the input counts too.
    for (const [field, value] of Object.entries(usage) as Array<[keyof AnthropicUsage, unknown]>) {
      if (value !== null && value !== undefined) (this.counts as Record<string, unknown>)[field] = value;
    }
  }

  usage(): NormalizedUsage | undefined {
    return normalizeAnthropicUsage(this.counts);
  }
}

/**
 * Anthropic's Messages SSE stream as StreamEvents in OpenAI's chunk shape:
 * message_start -> a role chunk; text_delta -> content; tool_use start -> a tool call with
 * index (counted over tool calls, as OpenAI does), id, name and empty arguments, then each
 * input_json_delta -> an arguments fragment; thinking_delta / signature_delta -> reasoning
 * and reasoning_details; message_delta -> the finish chunk; message_stop -> the usage event.
 */
export async function* anthropicStreamEvents(
  provider: string,
  text: AsyncIterable<string>,
  options: { excludeReasoning: boolean },
): AsyncGenerator<StreamEvent> {
  const state = new StreamState(options.excludeReasoning);
  const tally = new AnthropicUsageTally();
  for await (const data of anthropicRawEvents(provider, text)) {
    tally.add(data);
    const choice = state.apply(data);
    // message_start's usage names the tier that served the call (`standard` / `priority`).
    const tier = data.type === 'message_start' ? reportedTier(data.message?.usage?.service_tier) : null;
    if (choice) yield tier ? { type: 'chunk', choices: [choice], serviceTier: tier } : { type: 'chunk', choices: [choice] };
  }
  const usage = tally.usage();
  if (usage) yield { type: 'usage', usage };
}

/** Which content block is which tool call. */
class StreamState {
  private readonly toolIndexByBlock = new Map<number, number>();

  constructor(private readonly excludeReasoning: boolean) {}

  /** The chunk choice a stream event becomes, if any. */
  apply(data: AnthropicStreamData): NormalizedChunkChoice | undefined {
    switch (data.type) {
      case 'message_start':
        return choice({ role: 'assistant', content: '' });
      case 'content_block_start':
        return this.blockStart(data.index ?? 0, data.content_block);
      case 'content_block_delta':
        return this.blockDelta(data.index ?? 0, data.delta ?? {});
      case 'message_delta': {
        const native = data.delta?.stop_reason ?? null;
        return native === null
          ? undefined
          : { index: 0, delta: {}, finish_reason: anthropicFinishReason(native), native_finish_reason: native };
      }
      case undefined:
      default:
        // ping, content_block_stop, a frame without a type and event types added later carry nothing to relay.
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
    if (block.type === 'redacted_thinking' && !this.excludeReasoning)
      return choice({ reasoning_details: [reasoningDetail(block, blockIndex)] });
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
        return choice({
          reasoning_details: [
            { type: 'reasoning.text', signature: delta.signature, format: ANTHROPIC_REASONING_FORMAT, index: blockIndex },
          ],
        });
      default:
        return undefined;
    }
  }
}

function choice(delta: Record<string, unknown>): NormalizedChunkChoice {
  return { index: 0, delta, finish_reason: null, native_finish_reason: null };
}
