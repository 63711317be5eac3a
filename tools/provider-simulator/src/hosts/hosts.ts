import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http.ts';
import { isRecord, parseJsonObject, type Json } from '../json.ts';
import { handleChatCompletions, OPENAI_CHAT_ARGUMENTS } from '../openai.ts';
import { HOST_RULES, isHostName, type HostName, type HostRules } from './host-rules.ts';
import { hostErrorBody, rewriteResponses } from './host-responses.ts';

/** The key every simulated host refuses (as the OpenAI simulator does). */
const INVALID_KEY = 'sk-sim-invalid';

/**
 * `POST /hosts/{host}/v1/chat/completions`: one OpenAI-compatible host, strict as its API
 * reference says. Its own refusals first (in its own error shape and status), then its
 * fields translated to OpenAI's and the OpenAI simulator answering, its answer rewritten into
 * the host's shape (reasoning field, usage, citations, tool call ids, error bodies).
 */
export async function handleHostChat(req: IncomingMessage, res: ServerResponse, raw: Buffer, host: string): Promise<void> {
  if (!isHostName(host)) return sendJson(res, 404, { error: { message: `No simulated host ${host}`, type: 'not_found' } });
  const rules = HOST_RULES[host];
  const fail = (status: number, message: string, param: string | null = null, code: string | null = null) =>
    sendJson(res, status, hostErrorBody(rules.errors, status, message, param, code));
  const key = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
  if (rules.auth !== 'none') {
    if (key === undefined && rules.auth === 'bearer') return fail(401, 'Invalid API Key', null, 'invalid_api_key');
    if (key === INVALID_KEY) return fail(401, 'Invalid API Key', null, 'invalid_api_key');
  }
  const body = parseJsonObject(raw);
  if (!body) return fail(400, 'The request body is not valid JSON.');
  const refusal = refusalOf(host, rules, body);
  if (refusal) return fail(refusal.status, refusal.message, refusal.param ?? null);
  const openai = toOpenAi(rules, body);
  // The OpenAI routes answer once the host's checks passed (their Bearer check is satisfied here).
  req.headers.authorization = 'Bearer sk-sim';
  rewriteResponses(res, host, rules, { model: String(body.model ?? '') });
  return handleChatCompletions(req, res, Buffer.from(JSON.stringify(openai)));
}

interface Refusal {
  status: number;
  message: string;
  param?: string;
}

function refusalOf(host: HostName, rules: HostRules, body: Json): Refusal | undefined {
  const model = typeof body.model === 'string' ? body.model.split(';')[0]! : '';
  const known = new Set([...(rules.accepts ?? OPENAI_CHAT_ARGUMENTS), ...rules.extras]);
  if (rules.maxTokens === 'max_tokens') known.delete('max_completion_tokens');
  for (const field of Object.keys(body)) {
    if (known.has(field)) continue;
    if (rules.unknownFields === 'groq') return { status: 400, message: `property '${field}' is unsupported`, param: field };
    if (rules.unknownFields === 'mistral') return extraForbidden(field);
  }
  const refused = [...rules.refuses, ...(rules.refusesOn ?? []).filter((rule) => rule.model.test(model)).flatMap((rule) => rule.fields)];
  for (const field of refused) {
    if (body[field] === undefined || body[field] === null) continue;
    if (host === 'xai') return { status: 400, message: `Model ${model} does not support parameter ${camel(field)}.`, param: field };
    return { status: 400, message: `'${field}' is not supported by this model`, param: field };
  }
  const n = body.n;
  if (typeof n === 'number' && n > rules.maxChoices && rules.refusesManyChoices)
    return {
      status: 400,
      message: host === 'groq' ? "'n' : number must be at most 1" : 'Only one completion choice is allowed',
      param: 'n',
    };
  const format = isRecord(body.response_format) ? body.response_format.type : undefined;
  if (typeof format === 'string' && !rules.responseFormats.includes(format)) {
    if (host === 'lmstudio') return { status: 400, message: "'response_format.type' must be 'json_schema'", param: 'response_format' };
    return { status: 400, message: 'This response_format type is unavailable now', param: 'response_format' };
  }
  if (isRecord(body.tool_choice) && !rules.namedToolChoice)
    return { status: 400, message: "tool_choice must be 'auto', 'none' or 'required'", param: 'tool_choice' };
  return messagesRefusal(host, rules, Array.isArray(body.messages) ? body.messages : [], model);
}

function messagesRefusal(host: HostName, rules: HostRules, messages: unknown[], model: string): Refusal | undefined {
  let previous: string | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isRecord(m)) continue;
    const role = String(m.role);
    if (!rules.roles.includes(role)) {
      if (host === 'mistral')
        return validationError(
          'literal_error',
          ['body', 'messages', i, 'role'],
          `Input should be ${rules.roles.map((r) => `'${r}'`).join(', ')}`,
        );
      return { status: 400, message: `Invalid role '${role}' in messages[${i}]`, param: `messages[${i}].role` };
    }
    if (!rules.messageName && m.name !== undefined)
      return {
        status: 400,
        message: `'messages.${i}' : for 'role:${role}' the following must be satisfied[('messages.${i}.name' : property 'name' is unsupported)]`,
      };
    if (rules.toolCallIds) {
      const ids = [
        ...(Array.isArray(m.tool_calls) ? m.tool_calls.filter(isRecord).map((c) => c.id) : []),
        ...(role === 'tool' ? [m.tool_call_id] : []),
      ];
      const bad = ids.find((id) => typeof id !== 'string' || !rules.toolCallIds!.test(id));
      if (bad !== undefined)
        return { status: 400, message: `Tool call id was ${String(bad)} but must be a-z, A-Z, 0-9, with a length of 9.` };
    }
    if (
      rules.reasoningBackOnToolTurns?.test(model) &&
      role === 'assistant' &&
      Array.isArray(m.tool_calls) &&
      typeof m.reasoning_content !== 'string'
    )
      return { status: 400, message: 'The `reasoning_content` in the thinking mode must be passed back to the API.' };
    if (rules.alternating && role !== 'system') {
      if (previous !== undefined && previous === role)
        return { status: 400, message: 'After the (optional) system message(s), user and assistant roles should be alternating.' };
      previous = role;
    }
  }
  return undefined;
}

function extraForbidden(field: string): Refusal {
  return validationError('extra_forbidden', ['body', field], 'Extra inputs are not permitted');
}

/** Mistral's FastAPI validation error: a 422 whose detail lists what failed where. */
function validationError(type: string, loc: Array<string | number>, msg: string): Refusal {
  return { status: 422, message: JSON.stringify([{ type, loc, msg }]) };
}

const camel = (field: string): string => field.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The host's request as the OpenAI simulator takes it: its extras translated (`random_seed`)
 * or dropped, a cap under a name the host ignores dropped (so it does not cap), message
 * fields the OpenAI simulator does not know removed, usage asked for where the host always streams it.
 */
function toOpenAi(rules: HostRules, body: Json): Json {
  const out: Json = {};
  for (const [field, value] of Object.entries(body)) if (OPENAI_CHAT_ARGUMENTS.has(field)) out[field] = value;
  if (body.random_seed !== undefined) out.seed = body.random_seed;
  if (rules.maxTokens === 'max_tokens') delete out.max_completion_tokens;
  if (typeof out.n === 'number' && out.n > rules.maxChoices) delete out.n;
  if (isRecord(out.response_format) && !['text', 'json_object', 'json_schema'].includes(String(out.response_format.type)))
    delete out.response_format;
  if (Array.isArray(out.messages))
    out.messages = out.messages.map((m) => {
      if (!isRecord(m)) return m;
      const { reasoning_content: _r, reasoning: _s, name: _n, ...rest } = m;
      return rest;
    });
  if (out.stream === true && rules.streamUsageAlways) out.stream_options = { include_usage: true };
  return out;
}
