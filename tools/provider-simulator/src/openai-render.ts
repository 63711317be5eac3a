import { logprobEntries } from './logprobs.ts';
import type { ChatPlan, ChoicePlan } from './openai-plan.ts';
import { usageOf } from './openai-plan.ts';
import { dataFrame, type Frame } from './sse.ts';
import { groupPieces } from './tokens.ts';

/** Completion tokens per content chunk when streaming. */
export const PIECES_PER_CHUNK = 3;

export interface RenderOptions {
  id: string;
  created: number;
  model: string;
  logprobs: boolean;
  topLogprobs: number;
  includeUsage: boolean;
  /** The tier that served the call, as OpenAI reports it (`priority` and `flex` when asked for, else `default`). */
  serviceTier: string;
}

function choiceLogprobs(choice: ChoicePlan, opts: RenderOptions) {
  if (!opts.logprobs || choice.toolCall) return null;
  return { content: logprobEntries(choice.pieces, 0, opts.topLogprobs), refusal: null };
}

/** The non-streaming `chat.completion` object. */
export function renderCompletion(plan: ChatPlan, opts: RenderOptions): Record<string, unknown> {
  return {
    id: opts.id,
    object: 'chat.completion',
    created: opts.created,
    model: opts.model,
    choices: plan.choices.map((choice) => {
      const message: Record<string, unknown> = { role: 'assistant', content: choice.content, refusal: null, annotations: [] };
      if (choice.reasoning !== undefined) message.reasoning = choice.reasoning;
      if (choice.toolCall) {
        const { id, name, arguments: args, custom } = choice.toolCall;
        message.tool_calls = [
          custom ? { id, type: 'custom', custom: { name, input: args } } : { id, type: 'function', function: { name, arguments: args } },
          ...(choice.moreToolCalls ?? []).map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        ];
      }
      return { index: choice.index, message, logprobs: choiceLogprobs(choice, opts), finish_reason: choice.finishReason };
    }),
    usage: usageOf(plan),
    service_tier: opts.serviceTier,
    system_fingerprint: 'fp_sim',
  };
}

/** The `chat.completion.chunk` frames of a streamed completion, ending with `[DONE]`. */
export function renderChunks(plan: ChatPlan, opts: RenderOptions): Frame[] {
  const frames: Frame[] = [];
  // The fields every chunk shares are serialised once.
  const head = `data: {"id":${JSON.stringify(opts.id)},"object":"chat.completion.chunk","created":${opts.created},"model":${JSON.stringify(opts.model)},"service_tier":${JSON.stringify(opts.serviceTier)},"system_fingerprint":"fp_sim","choices":`;
  const chunk = (choices: unknown[], content = false, usage?: unknown): void => {
    const tail = opts.includeUsage ? `,"usage":${JSON.stringify(usage ?? null)}}\n\n` : '}\n\n';
    frames.push({ data: head + JSON.stringify(choices) + tail, content });
  };
  const one = (index: number, delta: unknown, logprobs: unknown = null, finish: string | null = null) => [
    { index, delta, logprobs, finish_reason: finish },
  ];

  for (const choice of plan.choices) {
    const i = choice.index;
    if (choice.toolCall) {
      const { id, name, custom } = choice.toolCall;
      const call = custom ? { type: 'custom', custom: { name, input: '' } } : { type: 'function', function: { name, arguments: '' } };
      chunk(one(i, { role: 'assistant', content: null, tool_calls: [{ index: 0, id, ...call }], refusal: null }));
    } else {
      chunk(one(i, { role: 'assistant', content: '', refusal: null }));
    }
    if (choice.reasoning !== undefined) chunk(one(i, { reasoning: choice.reasoning }));
    let offset = 0;
    for (const group of groupPieces(choice.pieces, PIECES_PER_CHUNK)) {
      if (choice.toolCall) {
        const piece = choice.toolCall.custom ? { custom: { input: group } } : { function: { arguments: group } };
        chunk(one(i, { tool_calls: [{ index: 0, ...piece }] }), true);
      } else {
        const count = Math.min(PIECES_PER_CHUNK, choice.pieces.length - offset);
        const lp = opts.logprobs
          ? { content: logprobEntries(choice.pieces.slice(offset, offset + count), offset, opts.topLogprobs), refusal: null }
          : null;
        chunk(one(i, { content: group }, lp), true);
      }
      offset += PIECES_PER_CHUNK;
    }
    // Parallel calls: each further call opens with its id and name, then its arguments, as OpenAI streams them.
    (choice.moreToolCalls ?? []).forEach((call, position) => {
      chunk(one(i, { tool_calls: [{ index: position + 1, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      chunk(one(i, { tool_calls: [{ index: position + 1, function: { arguments: call.arguments } }] }), true);
    });
    chunk(one(i, {}, null, choice.finishReason));
  }
  if (opts.includeUsage) chunk([], false, usageOf(plan));
  frames.push({ data: 'data: [DONE]\n\n', content: false });
  return frames;
}

/** The frame OpenAI sends when a stream fails part-way. */
export function openaiStreamErrorFrame(): Frame {
  return dataFrame({
    error: {
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      param: null,
      code: null,
    },
  });
}
