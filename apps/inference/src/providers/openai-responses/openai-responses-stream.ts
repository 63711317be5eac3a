import { streamErrorFailure } from '../../upstream/upstream-failure.js';
import type { NormalizedChunkChoice, StreamEvent } from '../provider-adapter.js';
import { sseJsonFrames, type JsonStreamFrame } from '../sse-json-frames.js';
import {
  finishReasonOf,
  normalizeResponsesUsage,
  OPENAI_RESPONSES_REASONING_FORMAT,
  reasoningDetailsOf,
  type ResponsesObject,
} from './openai-responses-response.js';

type Json = Record<string, unknown>;

/**
 * OpenAI's Responses SSE stream (`event: response.*` + `data: {...}`) as the pipeline's chat
 * StreamEvents: text deltas -> `content`, function calls -> `tool_calls` fragments
 * (id and name when the item is added, then argument deltas), reasoning summary deltas ->
 * `reasoning`, a finished reasoning item's encrypted content -> `reasoning_details`, and the
 * terminal `response.completed` / `response.incomplete` -> the finish chunk and the usage
 * event. `response.failed`, `error`, a frame that is not JSON or an end without a terminal
 * event throw a non-retryable UpstreamFailure.
 */
export async function* openAiResponsesStreamEvents(provider: string, text: AsyncIterable<string>): AsyncGenerator<StreamEvent> {
  const toolIndexByItem = new Map<string, number>();
  let reasoningDetails = 0;
  for await (const frame of sseJsonFrames<Json>(provider, text, { isTerminal: (frame) => TERMINAL.has(typeOf(frame) ?? '') })) {
    const event = frame.data;
    switch (typeOf(frame)) {
      case 'response.output_text.delta':
        if (typeof event.delta === 'string' && event.delta.length > 0) yield chunk({ content: event.delta });
        break;
      case 'response.refusal.delta':
        if (typeof event.delta === 'string') yield chunk({ refusal: event.delta });
        break;
      case 'response.reasoning_summary_text.delta':
        if (typeof event.delta === 'string') yield chunk({ reasoning: event.delta });
        break;
      case 'response.output_item.added': {
        const item = (event.item ?? {}) as Json;
        if (item.type === 'function_call' || item.type === 'custom_tool_call') {
          const index = toolIndexByItem.size;
          toolIndexByItem.set(String(item.id ?? index), index);
          yield chunk({
            tool_calls: [
              { index, id: String(item.call_id ?? ''), type: 'function', function: { name: String(item.name ?? ''), arguments: '' } },
            ],
          });
        }
        break;
      }
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta': {
        const index = toolIndexByItem.get(String(event.item_id)) ?? 0;
        if (typeof event.delta === 'string') yield chunk({ tool_calls: [{ index, function: { arguments: event.delta } }] });
        break;
      }
      case 'response.output_item.done': {
        const item = (event.item ?? {}) as Json;
        if (item.type === 'reasoning') {
          // The summaries already streamed as text; the details carry them and the encrypted content whole.
          const details = reasoningDetailsOf(item, reasoningDetails);
          reasoningDetails += details.length;
          if (details.length > 0)
            yield chunk({ reasoning_details: details.map((detail) => ({ ...detail, format: OPENAI_RESPONSES_REASONING_FORMAT })) });
        }
        break;
      }
      case 'response.completed':
      case 'response.incomplete': {
        const response = (event.response ?? {}) as ResponsesObject;
        const reason = response.incomplete_details?.reason;
        const finish = finishReasonOf(response.status, reason, toolIndexByItem.size > 0);
        yield {
          type: 'chunk',
          choices: [{ index: 0, delta: {}, finish_reason: finish, native_finish_reason: reason ?? response.status ?? null }],
          serviceTier: response.service_tier ?? null,
        };
        const usage = normalizeResponsesUsage(response.usage);
        if (usage) yield { type: 'usage', usage };
        break;
      }
      case 'response.failed': {
        const response = (event.response ?? {}) as ResponsesObject;
        throw streamErrorFailure(provider, { message: response.error?.message, code: response.error?.code });
      }
      case 'error':
        throw streamErrorFailure(provider, event as { message?: unknown; code?: unknown; type?: unknown });
      case undefined:
      default:
        break; // lifecycle and bookkeeping events (and a frame without a type) say nothing the chat form carries
    }
  }
}

/** The events after which a Responses stream carries nothing more. */
const TERMINAL = new Set(['response.completed', 'response.incomplete']);

/** The event's type: its data's `type`, else the SSE `event:` name. */
function typeOf(frame: JsonStreamFrame<Json>): string | undefined {
  return typeof frame.data.type === 'string' ? frame.data.type : frame.event;
}

function chunk(delta: Json): StreamEvent {
  const choice: NormalizedChunkChoice = { index: 0, delta, finish_reason: null, native_finish_reason: null };
  return { type: 'chunk', choices: [choice] };
}
