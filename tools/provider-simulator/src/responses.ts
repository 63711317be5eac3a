import type { IncomingMessage, ServerResponse } from 'node:http';
import { chatCustomTool, responsesCustomToolProblem } from './custom-tools.ts';
import { openaiError, type OpenAIErrorBody } from './errors.ts';
import type { Directives } from './faults.ts';
import { cutBeforeBody, nowSeconds, randomId, sendJson } from './http.ts';
import { isRecord, type Json } from './json.ts';
import { openaiPreamble } from './openai.ts';
import { countPromptTokens, planChat, type ChatPlan, type ChoicePlan } from './openai-plan.ts';
import { PIECES_PER_CHUNK } from './openai-render.ts';
import { cutIndex, eventFrame, sendStream, type Frame } from './sse.ts';
import { streamStatsFor } from './stream-stats.ts';
import { groupPieces } from './tokens.ts';

/** Top-level arguments OpenAI's `POST /v1/responses` takes; anything else is a 400 `unknown_parameter`. */
const KNOWN_PARAMETERS = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'max_tool_calls',
  'temperature',
  'top_p',
  'top_logprobs',
  'reasoning',
  'text',
  'metadata',
  'store',
  'stream',
  'stream_options',
  'include',
  'user',
  'safety_identifier',
  'service_tier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'truncation',
  'previous_response_id',
  'background',
  'prompt',
  'conversation',
]);
const INCLUDES = new Set([
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
]);
const ROLES = ['user', 'assistant', 'system', 'developer'];
const MIN_OUTPUT_TOKENS = 16;

function bad(message: string, param: string | null = null, code: string | null = null): OpenAIErrorBody {
  return openaiError(message, 'invalid_request_error', param, code);
}

/** OpenAI's checks of a Responses request, with its messages, params and codes. */
export function validateResponses(body: Json): OpenAIErrorBody | undefined {
  for (const key of Object.keys(body)) if (!KNOWN_PARAMETERS.has(key)) return bad(`Unknown parameter: '${key}'.`, key, 'unknown_parameter');
  if (typeof body.model !== 'string' || body.model === '')
    return bad("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  const input = body.input;
  if (typeof input !== 'string' && !Array.isArray(input))
    return bad("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  if (Array.isArray(input)) {
    for (let i = 0; i < input.length; i++) {
      const item: unknown = input[i];
      if (!isRecord(item))
        return bad(`Invalid type for 'input[${i}]': expected an object, but got ${typeof item} instead.`, `input[${i}]`, 'invalid_type');
      const type = item.type ?? 'message';
      if (type === 'message') {
        if (typeof item.role !== 'string' || !ROLES.includes(item.role)) {
          return bad(
            `Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
            `input[${i}].role`,
            'invalid_value',
          );
        }
        if (Array.isArray(item.content)) {
          for (let j = 0; j < item.content.length; j++) {
            const part: unknown = item.content[j];
            const allowed = item.role === 'assistant' ? ['output_text', 'refusal'] : ['input_text', 'input_image', 'input_file'];
            if (!isRecord(part) || typeof part.type !== 'string' || !allowed.includes(part.type)) {
              return bad(
                `Invalid value: '${String(isRecord(part) ? part.type : part)}'. Supported values are: ${allowed.map((name) => `'${name}'`).join(', ')}.`,
                `input[${i}].content[${j}].type`,
                'invalid_value',
              );
            }
          }
        } else if (typeof item.content !== 'string') {
          return bad(`Missing required parameter: 'input[${i}].content'.`, `input[${i}].content`, 'missing_required_parameter');
        }
      } else if (type === 'function_call') {
        if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.arguments !== 'string') {
          return bad(`Missing required parameter: 'input[${i}].call_id'.`, `input[${i}]`, 'missing_required_parameter');
        }
      } else if (type === 'custom_tool_call') {
        if (typeof item.call_id !== 'string' || typeof item.name !== 'string' || typeof item.input !== 'string') {
          return bad(`Missing required parameter: 'input[${i}].call_id'.`, `input[${i}]`, 'missing_required_parameter');
        }
      } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
        if (typeof item.call_id !== 'string')
          return bad(`Missing required parameter: 'input[${i}].call_id'.`, `input[${i}].call_id`, 'missing_required_parameter');
      } else if (type === 'reasoning') {
        if (body.store === false && typeof item.encrypted_content !== 'string') {
          return bad(
            `Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
            'input',
            null,
          );
        }
      } else {
        return bad(`Invalid value: '${String(type)}'.`, `input[${i}].type`, 'invalid_value');
      }
    }
  }
  if (Array.isArray(body.tools)) {
    for (let i = 0; i < body.tools.length; i++) {
      const tool: unknown = body.tools[i];
      if (isRecord(tool) && tool.type === 'custom') {
        const problem = responsesCustomToolProblem(tool, `tools[${i}]`);
        if (problem) return bad(problem.message, problem.param, 'invalid_value');
        continue;
      }
      if (!isRecord(tool) || tool.type !== 'function' || typeof tool.name !== 'string') {
        return bad(`Missing required parameter: 'tools[${i}].name'.`, `tools[${i}].name`, 'missing_required_parameter');
      }
    }
  }
  const max = body.max_output_tokens;
  if (max !== undefined && max !== null) {
    if (typeof max !== 'number' || !Number.isInteger(max))
      return bad(
        `Invalid type for 'max_output_tokens': expected an integer, but got ${typeof max} instead.`,
        'max_output_tokens',
        'invalid_type',
      );
    if (max < MIN_OUTPUT_TOKENS) {
      return bad(
        `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${max} instead.`,
        'max_output_tokens',
        'integer_below_min_value',
      );
    }
  }
  if (Array.isArray(body.include)) {
    for (const value of body.include)
      if (typeof value !== 'string' || !INCLUDES.has(value)) return bad(`Invalid value: '${String(value)}'.`, 'include', 'invalid_value');
  }
  const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
  if (format?.type === 'json_schema' && (typeof format.name !== 'string' || !isRecord(format.schema))) {
    return bad("Missing required parameter: 'text.format.name'.", 'text.format.name', 'missing_required_parameter');
  }
  if (body.stream_options != null && body.stream !== true)
    return bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  return undefined;
}

function textOf(content: unknown): string | Json[] {
  if (typeof content === 'string') return content;
  return (content as Json[]).map((part) => {
    if (part.type === 'input_image') return { type: 'image_url', image_url: { url: part.image_url } };
    return { type: 'text', text: typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : '' };
  });
}

/** The Responses request in the chat shape the shared planner reads (same replies, same token counts). */
export function toChatShape(body: Json): Json {
  const messages: Json[] = [];
  if (typeof body.instructions === 'string') messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else {
    for (const item of body.input as Json[]) {
      const type = item.type ?? 'message';
      if (type === 'message') messages.push({ role: item.role, content: textOf(item.content) });
      else if (type === 'function_call' || type === 'custom_tool_call') {
        const last = messages.at(-1);
        const call =
          type === 'custom_tool_call'
            ? { id: item.call_id, type: 'custom', custom: { name: item.name, input: item.input } }
            : { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
        if (last?.role === 'assistant') last.tool_calls = [...((last.tool_calls as Json[] | undefined) ?? []), call];
        else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      } else if (type === 'function_call_output' || type === 'custom_tool_call_output')
        messages.push({
          role: 'tool',
          tool_call_id: item.call_id,
          content: typeof item.output === 'string' ? item.output : JSON.stringify(item.output),
        });
    }
  }
  const chat: Json = { model: body.model, messages };
  if (Array.isArray(body.tools))
    chat.tools = (body.tools as Json[]).map((tool) =>
      tool.type === 'custom' ? chatCustomTool(tool) : { type: 'function', function: { name: tool.name, parameters: tool.parameters } },
    );
  if (isRecord(body.tool_choice) && typeof body.tool_choice.name === 'string')
    chat.tool_choice =
      body.tool_choice.type === 'custom'
        ? { type: 'custom', custom: { name: body.tool_choice.name } }
        : { type: 'function', function: { name: body.tool_choice.name } };
  else if (typeof body.tool_choice === 'string') chat.tool_choice = body.tool_choice;
  const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
  if (format?.type === 'json_object') chat.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema')
    chat.response_format = { type: 'json_schema', json_schema: { name: format.name, schema: format.schema } };
  if (typeof body.max_output_tokens === 'number') chat.max_completion_tokens = body.max_output_tokens;
  return chat;
}

interface RenderContext {
  id: string;
  created: number;
  model: string;
  body: Json;
  plan: ChatPlan;
  /** Item ids fixed once, so the stream and its final response agree. */
  ids: { reasoning: string; message: string; call: string };
}

function wantsEncrypted(body: Json): boolean {
  return Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
}

function reasoningItem(ctx: RenderContext, choice: ChoicePlan): Json {
  const reasoning = isRecord(ctx.body.reasoning) ? ctx.body.reasoning : {};
  const item: Json = {
    type: 'reasoning',
    id: ctx.ids.reasoning,
    summary: reasoning.summary ? [{ type: 'summary_text', text: choice.reasoning }] : [],
  };
  if (wantsEncrypted(ctx.body)) item.encrypted_content = `enc_${Buffer.from(choice.reasoning ?? '').toString('base64')}`;
  return item;
}

function outputOf(ctx: RenderContext, choice: ChoicePlan): Json[] {
  const output: Json[] = [];
  if (choice.reasoning !== undefined) output.push(reasoningItem(ctx, choice));
  if (choice.toolCall?.custom) {
    const { id, name, arguments: input } = choice.toolCall;
    output.push({ type: 'custom_tool_call', id: ctx.ids.call, call_id: id, name, input });
  } else if (choice.toolCall) {
    const { id, name, arguments: args } = choice.toolCall;
    output.push({ type: 'function_call', id: ctx.ids.call, call_id: id, name, arguments: args, status: 'completed' });
  } else {
    output.push({
      type: 'message',
      id: ctx.ids.message,
      role: 'assistant',
      status: choice.finishReason === 'length' ? 'incomplete' : 'completed',
      content: [{ type: 'output_text', text: choice.content ?? '', annotations: [], logprobs: [] }],
    });
  }
  return output;
}

function usageOf(plan: ChatPlan): Json {
  return {
    input_tokens: plan.promptTokens,
    input_tokens_details: { cached_tokens: plan.cachedTokens },
    output_tokens: plan.completionTokens,
    output_tokens_details: { reasoning_tokens: plan.reasoningTokens },
    total_tokens: plan.promptTokens + plan.completionTokens,
  };
}

function responseOf(ctx: RenderContext, status: string, output: Json[], usage: Json | null): Json {
  const body = ctx.body;
  return {
    id: ctx.id,
    object: 'response',
    created_at: ctx.created,
    status,
    background: false,
    completed_at: status === 'in_progress' ? null : nowSeconds(),
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: ctx.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null, ...(isRecord(body.reasoning) ? body.reasoning : {}) },
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

/** Status of the response from the (single) choice. */
function statusOf(plan: ChatPlan): string {
  return plan.choices[0]?.finishReason === 'length' ? 'incomplete' : 'completed';
}

/** The semantic events of a streamed response, as OpenAI sends them, ending with response.completed / .incomplete. */
export function renderResponseEvents(ctx: RenderContext): Frame[] {
  const frames: Frame[] = [];
  let sequence = 0;
  const send = (type: string, payload: Json, content = false) =>
    frames.push(eventFrame(type, { type, sequence_number: sequence++, ...payload }, content));
  const choice = ctx.plan.choices[0]!;
  const final = outputOf(ctx, choice);
  send('response.created', { response: responseOf(ctx, 'in_progress', [], null) });
  send('response.in_progress', { response: responseOf(ctx, 'in_progress', [], null) });
  let index = 0;
  for (const item of final) {
    const output_index = index++;
    const item_id = item.id;
    if (item.type === 'reasoning') {
      send('response.output_item.added', { output_index, item: { type: 'reasoning', id: item_id, summary: [] } });
      const summary = (item.summary as Json[])[0];
      if (summary) {
        const part = { type: 'summary_text', text: '' };
        send('response.reasoning_summary_part.added', { item_id, output_index, summary_index: 0, part });
        send('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta: summary.text });
        send('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text: summary.text });
        send('response.reasoning_summary_part.done', { item_id, output_index, summary_index: 0, part: summary });
      }
    } else if (item.type === 'function_call') {
      send('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const group of groupPieces(choice.pieces, PIECES_PER_CHUNK))
        send('response.function_call_arguments.delta', { item_id, output_index, delta: group }, true);
      send('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments });
    } else if (item.type === 'custom_tool_call') {
      send('response.output_item.added', { output_index, item: { ...item, input: '' } });
      for (const group of groupPieces(choice.pieces, PIECES_PER_CHUNK))
        send('response.custom_tool_call_input.delta', { item_id, output_index, delta: group }, true);
      send('response.custom_tool_call_input.done', { item_id, output_index, input: item.input });
    } else {
      send('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      send('response.content_part.added', { item_id, output_index, content_index: 0, part });
      for (const group of groupPieces(choice.pieces, PIECES_PER_CHUNK))
        send('response.output_text.delta', { item_id, output_index, content_index: 0, delta: group, logprobs: [] }, true);
      const text = choice.content ?? '';
      send('response.output_text.done', { item_id, output_index, content_index: 0, text, logprobs: [] });
      send('response.content_part.done', { item_id, output_index, content_index: 0, part: { ...part, text } });
    }
    send('response.output_item.done', { output_index, item });
  }
  const status = statusOf(ctx.plan);
  send(status === 'completed' ? 'response.completed' : 'response.incomplete', {
    response: responseOf(ctx, status, final, usageOf(ctx.plan)),
  });
  return frames;
}

/** The `error` event OpenAI sends when a response stream fails part-way, numbered after the frames sent. */
function errorEvent(sequence: number): Frame {
  return eventFrame('error', {
    type: 'error',
    sequence_number: sequence,
    code: 'server_error',
    message: 'The server had an error while processing your request. Sorry about that!',
    param: null,
  });
}

export async function handleResponses(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  const pre = await openaiPreamble(req, res, raw);
  if (!pre) return;
  const { body, base, directives: d } = pre;
  const invalid = validateResponses(body);
  if (invalid) return sendJson(res, 400, invalid);
  const chat = toChatShape(body);
  const promptTokens = countPromptTokens(chat.messages as Json[], chat.tools);
  if (promptTokens > d.context) {
    return sendJson(
      res,
      400,
      bad(
        `Your input exceeds the context window of this model. Please adjust your input and try again.`,
        'input',
        'context_length_exceeded',
      ),
    );
  }
  const headers = { 'x-request-id': `req_${randomId(24)}`, 'openai-processing-ms': String(d.latency) };
  const stream = body.stream === true;
  if (!stream && d.cut !== undefined) return cutBeforeBody(res, headers);
  const ctx: RenderContext = {
    id: `resp_${randomId(32)}`,
    created: nowSeconds(),
    model: base,
    body,
    plan: planChat(chat, withReasoning(d, body), promptTokens, base),
    ids: { reasoning: `rs_${randomId(32)}`, message: `msg_${randomId(32)}`, call: `fc_${randomId(32)}` },
  };
  if (!stream) {
    const stats = streamStatsFor(String(body.model));
    stats.started++;
    if (res.destroyed || res.socket?.destroyed) {
      stats.abandoned++;
      return;
    }
    const choice = ctx.plan.choices[0]!;
    sendJson(res, 200, responseOf(ctx, statusOf(ctx.plan), outputOf(ctx, choice), usageOf(ctx.plan)), headers);
    stats.finished++;
    return;
  }
  const frames = renderResponseEvents(ctx);
  await sendStream(res, frames, {
    chunkDelay: d.chunkDelay,
    cut: d.cut,
    errorAfter: d.streamError,
    errorFrame: d.streamError === undefined ? undefined : errorEvent(cutIndex(frames, d.streamError) + 1),
    headers,
    statsKey: String(body.model),
  });
}

/** The `reasoning=N` directive, as on chat; the Responses API reasons when the request sets `reasoning` too. */
function withReasoning(d: Directives, body: Json): Directives {
  if (d.reasoning !== undefined || !isRecord(body.reasoning) || body.reasoning.effort === 'none') return d;
  return { ...d, reasoning: 16 };
}
