import { EventStreamCodec } from '@smithy/core/event-streams';
import { randomUUID } from 'node:crypto';
import type { MessagePlan } from './anthropic-plan.ts';
import { groupPieces } from './tokens.ts';
import { PIECES_PER_DELTA } from './anthropic-render.ts';
import type { Json } from './json.ts';

/** Converse stop reasons for the planner's (Anthropic's) ones, plus a guardrail's intervention. */
export type ConverseStop = MessagePlan['stopReason'] | 'guardrail_intervened';

function usage(plan: MessagePlan): Json {
  return {
    inputTokens: plan.inputTokens,
    outputTokens: plan.outputTokens,
    totalTokens: plan.inputTokens + plan.outputTokens + plan.cacheReadTokens + plan.cacheWriteTokens,
    ...(plan.cacheReadTokens > 0 || plan.cacheWriteTokens > 0
      ? { cacheReadInputTokens: plan.cacheReadTokens, cacheWriteInputTokens: plan.cacheWriteTokens }
      : {}),
  };
}

function contentOf(plan: MessagePlan): Json[] {
  return plan.content.map((block) => {
    if (block.type === 'text') return { text: block.text };
    if (block.type === 'tool_use') return { toolUse: { toolUseId: block.id, name: block.name, input: block.input } };
    return { reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } };
  });
}

/** The Converse answer: `{output: {message}, stopReason, usage, metrics}` (and `trace` when asked). */
export function renderConverse(plan: MessagePlan, stop: ConverseStop, trace?: Json): Json {
  return {
    output: { message: { role: 'assistant', content: contentOf(plan) } },
    stopReason: stop,
    usage: usage(plan),
    metrics: { latencyMs: 42 },
    ...(trace ? { trace } : {}),
  };
}

/** One event-stream message, encoded with the smithy codec the AWS SDK decodes with. */
export interface EventFrame {
  bytes: Uint8Array;
  content: boolean;
}

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

export function eventFrame(type: string, payload: Json, content = false): EventFrame {
  const bytes = codec.encode({
    headers: {
      ':event-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: Buffer.from(JSON.stringify(payload)),
  });
  return { bytes, content };
}

/** An exception in the stream (`:message-type: exception`), as ConverseStream sends one mid-answer. */
export function exceptionFrame(type: string, message: string): EventFrame {
  const bytes = codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: Buffer.from(JSON.stringify({ message })),
  });
  return { bytes, content: false };
}

/**
 * ConverseStream's events: messageStart; per block a contentBlockStart (tool use only), deltas
 * (text, tool input JSON fragments, reasoning text then its signature) and a contentBlockStop;
 * messageStop; metadata with usage and metrics.
 */
export function renderConverseEvents(plan: MessagePlan, stop: ConverseStop, trace?: Json): EventFrame[] {
  const frames: EventFrame[] = [eventFrame('messageStart', { role: 'assistant' })];
  plan.content.forEach((block, index) => {
    if (block.type === 'tool_use')
      frames.push(
        eventFrame('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: block.id, name: block.name } } }),
      );
    for (const piece of groupPieces(plan.pieces[index] ?? [], PIECES_PER_DELTA)) {
      const delta =
        block.type === 'text'
          ? { text: piece }
          : block.type === 'tool_use'
            ? { toolUse: { input: piece } }
            : { reasoningContent: { text: piece } };
      frames.push(eventFrame('contentBlockDelta', { contentBlockIndex: index, delta }, true));
    }
    if (block.type === 'thinking')
      frames.push(
        eventFrame('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { signature: block.signature } } }),
      );
    frames.push(eventFrame('contentBlockStop', { contentBlockIndex: index }));
  });
  frames.push(eventFrame('messageStop', { stopReason: stop }));
  frames.push(eventFrame('metadata', { usage: usage(plan), metrics: { latencyMs: 42 }, ...(trace ? { trace } : {}) }));
  return frames;
}

export function requestId(): string {
  return randomUUID();
}
