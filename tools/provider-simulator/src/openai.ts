import type { IncomingMessage, ServerResponse } from 'node:http';
import { chatCustomToolProblem } from './custom-tools.ts';
import { openaiError, sendOpenAIStatus, type OpenAIErrorBody } from './errors.ts';
import { faultStatus, parseDirectives } from './faults.ts';
import { cutBeforeBody, nowSeconds, randomId, sendJson, sleep } from './http.ts';
import { streamStatsFor } from './stream-stats.ts';
import { isRecord, parseJsonObject, type Json } from './json.ts';
import { countPromptTokens, planChat } from './openai-plan.ts';
import { openaiStreamErrorFrame, renderChunks, renderCompletion } from './openai-render.ts';
import { sendStream } from './sse.ts';

export const OPENAI_MODELS = ['sim-gpt', 'sim-gpt-mini', 'sim-reasoner', 'sim-embedding'];
const MODELS_CREATED = 1_700_000_000;
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];
const PARSE_ERROR =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)";

function bad(message: string, param: string | null = null, code: string | null = null): OpenAIErrorBody {
  return openaiError(message, 'invalid_request_error', param, code);
}

/** 401 body when the bearer key is missing or is `sk-sim-invalid`. */
export function checkOpenAIAuth(req: IncomingMessage): OpenAIErrorBody | undefined {
  const header = req.headers.authorization ?? '';
  const key = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
  if (!key) {
    return bad(
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
    );
  }
  if (key === 'sk-sim-invalid') {
    return bad(
      'Incorrect API key provided: sk-sim-*****alid. You can find your API key at https://platform.openai.com/account/api-keys.',
      null,
      'invalid_api_key',
    );
  }
  return undefined;
}

function checkInt(body: Json, name: string, min: number, max: number): OpenAIErrorBody | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    return bad(`Invalid type for '${name}': expected an integer, but got ${typeof v} instead.`, name, 'invalid_type');
  }
  if (v < min)
    return bad(
      `Invalid '${name}': integer below minimum value. Expected a value >= ${min}, but got ${v} instead.`,
      name,
      'integer_below_min_value',
    );
  if (v > max)
    return bad(
      `Invalid '${name}': integer above maximum value. Expected a value <= ${max}, but got ${v} instead.`,
      name,
      'integer_above_max_value',
    );
  return undefined;
}

/** OpenAI's service tiers; `fast` and `ultrafast` are the gateway's words, not OpenAI's. */
export const OPENAI_SERVICE_TIERS = ['auto', 'default', 'flex', 'scale', 'priority'];

/** The top-level arguments OpenAI's chat completions take; any other is refused as OpenAI does. */
export const OPENAI_CHAT_ARGUMENTS = new Set([
  'model',
  'messages',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'prompt_cache_retention',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
]);

export function validateChat(body: Json): OpenAIErrorBody | undefined {
  const unknown = Object.keys(body).find((field) => !OPENAI_CHAT_ARGUMENTS.has(field));
  if (unknown !== undefined) return bad(`Unrecognized request argument supplied: ${unknown}`);
  if (typeof body.model !== 'string' || body.model === '') return bad('you must provide a model parameter');
  const messages = body.messages;
  if (messages === undefined) return bad("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(messages))
    return bad(`Invalid type for 'messages': expected an array, but got ${typeof messages} instead.`, 'messages', 'invalid_type');
  if (messages.length === 0) {
    return bad(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isRecord(m))
      return bad(`Invalid type for 'messages[${i}]': expected an object, but got ${typeof m} instead.`, `messages[${i}]`, 'invalid_type');
    if (typeof m.role !== 'string' || !ROLES.includes(m.role)) {
      return bad(
        `Invalid value: '${String(m.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${i}].role`,
        'invalid_value',
      );
    }
    // A tool message holds text only.
    if (m.role === 'tool' && Array.isArray(m.content)) {
      const j = m.content.findIndex((part) => !isRecord(part) || part.type !== 'text');
      if (j >= 0) {
        const part: unknown = m.content[j];
        return bad(
          `Invalid value: '${String(isRecord(part) ? part.type : part)}'. Supported values are: 'text'.`,
          `messages[${i}].content[${j}].type`,
          'invalid_value',
        );
      }
    }
  }
  const pairing = toolCallPairing(messages as Json[]);
  if (pairing) return pairing;
  if (body.tool_choice !== undefined && (!Array.isArray(body.tools) || body.tools.length === 0)) {
    return bad("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
  }
  if (Array.isArray(body.tools)) {
    for (let i = 0; i < body.tools.length; i++) {
      const t: unknown = body.tools[i];
      if (isRecord(t) && t.type === 'custom') {
        const problem = chatCustomToolProblem(t, `tools[${i}]`);
        if (problem) return bad(problem.message, problem.param, 'invalid_value');
        continue;
      }
      if (!isRecord(t) || !isRecord(t.function) || typeof t.function.name !== 'string') {
        return bad(`Missing required parameter: 'tools[${i}].function.name'.`, `tools[${i}].function.name`, 'missing_required_parameter');
      }
    }
  }
  const t = body.temperature;
  if (typeof t === 'number' && (t < 0 || t > 2)) {
    return bad(
      `Invalid 'temperature': decimal ${t < 0 ? 'below minimum' : 'above maximum'} value. Expected a value ${t < 0 ? '>= 0' : '<= 2'}, but got ${t} instead.`,
      'temperature',
      t < 0 ? 'decimal_below_min_value' : 'decimal_above_max_value',
    );
  }
  const intError =
    checkInt(body, 'n', 1, 128) ??
    checkInt(body, 'max_tokens', 1, 1_000_000) ??
    checkInt(body, 'max_completion_tokens', 1, 1_000_000) ??
    checkInt(body, 'top_logprobs', 0, 20);
  if (intError) return intError;
  if (body.top_logprobs != null && body.logprobs !== true) {
    return bad("Invalid value for 'logprobs': must be true when 'top_logprobs' is specified.", 'logprobs', 'invalid_value');
  }
  const tier = body.service_tier;
  if (tier != null && !OPENAI_SERVICE_TIERS.includes(tier as string)) {
    return bad(
      `Invalid value: '${String(tier)}'. Supported values are: 'auto', 'default', 'flex', 'scale', and 'priority'.`,
      'service_tier',
      'invalid_value',
    );
  }
  if (body.stream_options != null && body.stream !== true) {
    return bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
  return undefined;
}

/**
 * Shared preamble of the OpenAI handlers: JSON parse, directives, latency, auth, faults.
 * Returns undefined when a response has already been sent.
 */
export async function openaiPreamble(req: IncomingMessage, res: ServerResponse, raw: Buffer) {
  const body = parseJsonObject(raw);
  if (!body) {
    sendJson(res, 400, bad(PARSE_ERROR));
    return undefined;
  }
  const { base, directives } = parseDirectives(body.model, req.headers);
  if (typeof body.model === 'string') streamStatsFor(body.model).received++;
  await sleep(directives.latency);
  const authError = checkOpenAIAuth(req);
  if (authError) {
    sendJson(res, 401, authError);
    return undefined;
  }
  const status = faultStatus(directives, body.model);
  if (status !== undefined) {
    sendOpenAIStatus(res, status, base, directives.retryAfter, directives.quota);
    return undefined;
  }
  return { body, base, directives };
}

export async function handleChatCompletions(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  const pre = await openaiPreamble(req, res, raw);
  if (!pre) return;
  const { body, base, directives: d } = pre;
  const invalid = validateChat(body);
  if (invalid) return sendJson(res, 400, invalid);
  const promptTokens = countPromptTokens(body.messages as Json[], body.tools);
  if (promptTokens > d.context) {
    return sendJson(
      res,
      400,
      bad(
        `This model's maximum context length is ${d.context} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
        'messages',
        'context_length_exceeded',
      ),
    );
  }
  const requestId = `req_${randomId(24)}`;
  const headers = { 'x-request-id': requestId, 'openai-processing-ms': String(d.latency) };
  const stream = body.stream === true;
  if (!stream && d.cut !== undefined) return cutBeforeBody(res, headers);

  if (stream && d.emptyStream)
    return sendStream(res, [{ data: 'data: [DONE]\n\n', content: false }], { chunkDelay: 0, headers, statsKey: String(body.model) });
  const plan = planChat(body, d, promptTokens, base);
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
  const opts = {
    id: `chatcmpl-${randomId(29)}`,
    created: nowSeconds(),
    model: base,
    logprobs: body.logprobs === true,
    topLogprobs: typeof body.top_logprobs === 'number' ? body.top_logprobs : 0,
    includeUsage: stream && streamOptions.include_usage === true,
    serviceTier: body.service_tier === 'priority' || body.service_tier === 'flex' ? body.service_tier : 'default',
  };
  if (!stream) return sendCompletion(res, String(body.model), renderCompletion(plan, opts), headers);
  await sendStream(res, renderChunks(plan, opts), {
    chunkDelay: d.chunkDelay,
    cut: d.cut,
    errorAfter: d.streamError,
    errorFrame: openaiStreamErrorFrame(),
    headers,
    statsKey: String(body.model),
  });
}

/**
 * A non-streamed completion, counted in the stream stats of its model string too: a client
 * that left during the `latency` wait (the gateway aborted the call) counts as abandoned.
 */
function sendCompletion(res: ServerResponse, statsKey: string, completion: Json, headers: Record<string, string>): void {
  const stats = streamStatsFor(statsKey);
  stats.started++;
  if (res.destroyed || res.socket?.destroyed) {
    stats.abandoned++;
    return;
  }
  sendJson(res, 200, completion, headers);
  stats.finished++;
}

function modelObject(id: string): Json {
  return { id, object: 'model', created: MODELS_CREATED, owned_by: 'provider-simulator' };
}

/** The model routes need no key (handy for health probes) but still reject `sk-sim-invalid`. */
function modelsAuthError(req: IncomingMessage): OpenAIErrorBody | undefined {
  return req.headers.authorization ? checkOpenAIAuth(req) : undefined;
}

export function handleListModels(req: IncomingMessage, res: ServerResponse): void {
  const authError = modelsAuthError(req);
  if (authError) return sendJson(res, 401, authError);
  sendJson(res, 200, { object: 'list', data: OPENAI_MODELS.map(modelObject) });
}

export function handleGetModel(req: IncomingMessage, res: ServerResponse, id: string): void {
  const authError = modelsAuthError(req);
  if (authError) return sendJson(res, 401, authError);
  sendJson(res, 200, modelObject(decodeURIComponent(id)));
}

/**
 * OpenAI's pairing rules: every `tool` message answers a tool call of the assistant message
 * before it, and every tool call of an assistant message is answered before the next message
 * of another role.
 */
function toolCallPairing(messages: readonly Json[]): OpenAIErrorBody | undefined {
  let pending: Set<string> | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool') {
      if (!pending || !pending.has(String(m.tool_call_id))) {
        return bad(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      }
      pending.delete(String(m.tool_call_id));
      continue;
    }
    if (pending && pending.size > 0) {
      return bad(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(', ')}`,
        'messages',
        'invalid_request_error',
      );
    }
    pending =
      m.role === 'assistant' && Array.isArray(m.tool_calls) ? new Set((m.tool_calls as Json[]).map((call) => String(call.id))) : undefined;
  }
  return undefined;
}
