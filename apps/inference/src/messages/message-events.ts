import type { StreamEvent } from '../providers/provider-adapter.js';
import { stopReasonOf, thinkingBlock } from './message-from-completion.js';

/** One event of Anthropic's Messages stream (`type` is also its SSE event name). */
export type MessageEvent = Record<string, unknown> & { type: string };

/** The SSE frame Anthropic sends for an event: `event: <type>` then its JSON. */
export function frameOf(event: MessageEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

type OpenBlock = { kind: 'text' } | { kind: 'thinking' } | { kind: 'tool'; toolIndex: number };

/**
 * Chat-completion chunks (an OpenAI-format endpoint) as Anthropic's content-block events:
 * reasoning -> a thinking block (thinking_delta, then signature_delta when one came),
 * content -> a text block (text_delta), each tool call -> a tool_use block (input_json_delta
 * per arguments fragment). A block is stopped when the next kind starts. message_start,
 * message_delta and message_stop are the stream service's (it alone knows ids and usage).
 */
export class ChunksToMessageEvents {
  private open: OpenBlock | undefined;
  private blockIndex = -1;
  private finishReason: string | null = null;

  /** The block events one provider chunk becomes. */
  add(event: Extract<StreamEvent, { type: 'chunk' }>): MessageEvent[] {
    const out: MessageEvent[] = [];
    const choice = event.choices.find((candidate) => candidate.index === 0) ?? event.choices[0];
    if (!choice) return out;
    const delta = choice.delta as Record<string, unknown>;
    const details = Array.isArray(delta.reasoning_details) ? (delta.reasoning_details as Array<Record<string, unknown>>) : [];
    if (typeof delta.reasoning === 'string' && delta.reasoning.length > 0) {
      this.ensure(out, { kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' });
      out.push(this.delta({ type: 'thinking_delta', thinking: delta.reasoning }));
    }
    for (const detail of details) {
      if (typeof detail.signature === 'string' && detail.signature.length > 0) {
        this.ensure(out, { kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' });
        out.push(this.delta({ type: 'signature_delta', signature: detail.signature }));
      } else if (detail.type === 'reasoning.encrypted') {
        const block = thinkingBlock(detail);
        if (block) {
          this.close(out);
          this.blockIndex++;
          out.push({ type: 'content_block_start', index: this.blockIndex, content_block: block });
          out.push({ type: 'content_block_stop', index: this.blockIndex });
        }
      }
    }
    if (typeof delta.content === 'string' && delta.content.length > 0) {
      this.ensure(out, { kind: 'text' }, { type: 'text', text: '' });
      out.push(this.delta({ type: 'text_delta', text: delta.content }));
    }
    for (const call of (delta.tool_calls as
      Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }> | undefined) ?? []) {
      const toolIndex = call.index ?? 0;
      if (this.open?.kind !== 'tool' || this.open.toolIndex !== toolIndex) {
        this.close(out);
        this.blockIndex++;
        this.open = { kind: 'tool', toolIndex };
        out.push({
          type: 'content_block_start',
          index: this.blockIndex,
          content_block: { type: 'tool_use', id: call.id ?? `toolu_${toolIndex}`, name: call.function?.name ?? '', input: {} },
        });
      }
      const fragment = call.function?.arguments;
      if (typeof fragment === 'string' && fragment.length > 0) out.push(this.delta({ type: 'input_json_delta', partial_json: fragment }));
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return out;
  }

  /** Stops the open block; the stop reason for message_delta. */
  finish(): { events: MessageEvent[]; stopReason: string | null } {
    const out: MessageEvent[] = [];
    this.close(out);
    return { events: out, stopReason: stopReasonOf(this.finishReason) };
  }

  private ensure(out: MessageEvent[], block: OpenBlock, start: Record<string, unknown>): void {
    if (this.open?.kind === block.kind && block.kind !== 'tool') return;
    this.close(out);
    this.blockIndex++;
    this.open = block;
    out.push({ type: 'content_block_start', index: this.blockIndex, content_block: start });
  }

  private delta(delta: Record<string, unknown>): MessageEvent {
    return { type: 'content_block_delta', index: this.blockIndex, delta };
  }

  private close(out: MessageEvent[]): void {
    if (!this.open) return;
    out.push({ type: 'content_block_stop', index: this.blockIndex });
    this.open = undefined;
  }
}
