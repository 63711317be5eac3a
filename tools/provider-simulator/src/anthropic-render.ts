import type { MessagePlan } from './anthropic-plan.ts';
import { eventFrame, type Frame } from './sse.ts';
import { groupPieces } from './tokens.ts';

/** Output pieces per content_block_delta when streaming. */
export const PIECES_PER_DELTA = 3;

function usage(plan: MessagePlan, outputTokens: number) {
  return {
    input_tokens: plan.inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: plan.cacheWriteTokens,
    cache_read_input_tokens: plan.cacheReadTokens,
    service_tier: plan.serviceTier,
    ...(plan.speed !== undefined ? { speed: plan.speed } : {}),
    ...(plan.inferenceGeo !== undefined ? { inference_geo: plan.inferenceGeo } : {}),
    ...(plan.webSearchRequests > 0 ? { server_tool_use: { web_search_requests: plan.webSearchRequests } } : {}),
  };
}

/** The non-streaming Messages API response. */
export function renderMessage(plan: MessagePlan, id: string, model: string): Record<string, unknown> {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: plan.content,
    stop_reason: plan.stopReason,
    stop_sequence: plan.stopSequence,
    stop_details: plan.stopDetails,
    usage: usage(plan, plan.outputTokens),
  };
}

/** The SSE events of a streamed message, message_start to message_stop. */
export function renderEvents(plan: MessagePlan, id: string, model: string): Frame[] {
  const frames: Frame[] = [
    eventFrame('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage(plan, 1),
      },
    }),
  ];
  plan.content.forEach((block, index) => {
    const delta = (d: unknown, content = true) =>
      frames.push(eventFrame('content_block_delta', { type: 'content_block_delta', index, delta: d }, content));
    const groups = groupPieces(plan.pieces[index] ?? [], PIECES_PER_DELTA);
    if (block.type === 'thinking') {
      frames.push(
        eventFrame('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
      );
      if (index === 0) frames.push(eventFrame('ping', { type: 'ping' }));
      for (const g of groups) delta({ type: 'thinking_delta', thinking: g });
      delta({ type: 'signature_delta', signature: block.signature }, false);
    } else if (block.type === 'text') {
      frames.push(eventFrame('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      if (index === 0) frames.push(eventFrame('ping', { type: 'ping' }));
      for (const g of groups) delta({ type: 'text_delta', text: g });
    } else {
      frames.push(
        eventFrame('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        }),
      );
      if (index === 0) frames.push(eventFrame('ping', { type: 'ping' }));
      for (const g of groups) delta({ type: 'input_json_delta', partial_json: g });
    }
    frames.push(eventFrame('content_block_stop', { type: 'content_block_stop', index }));
  });
  frames.push(
    eventFrame('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: plan.stopReason, stop_sequence: plan.stopSequence, stop_details: plan.stopDetails },
      usage: {
        output_tokens: plan.outputTokens,
        ...(plan.webSearchRequests > 0 ? { server_tool_use: { web_search_requests: plan.webSearchRequests } } : {}),
      },
    }),
  );
  frames.push(eventFrame('message_stop', { type: 'message_stop' }));
  return frames;
}

/** The event Anthropic sends when a stream fails part-way. */
export function anthropicStreamErrorFrame(): Frame {
  return eventFrame('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
}
