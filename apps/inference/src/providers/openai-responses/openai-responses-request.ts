import { GatewayError } from '@gw/errors';
import { customToolNames } from '../custom-tool-calls.js';
import { OPENAI_RESPONSES_REASONING_FORMAT } from './openai-responses-response.js';

type Json = Record<string, unknown>;

/**
 * Chat-body fields that mean the same in OpenAI's Responses API under the same name. Anything
 * not listed here or mapped below is not sent: a Responses endpoint answers 400 to arguments
 * it does not know, and the gateway's own fields (provider, models, session_id...) are not its.
 */
const SAME_NAME = [
  'temperature',
  'top_p',
  'parallel_tool_calls',
  'metadata',
  'service_tier',
  'prompt_cache_key',
  'safety_identifier',
] as const;

/**
 * The internal form (a chat-completions body) as an OpenAI Responses request:
 * messages -> input items (function calls and their outputs as items, reasoning details back
 * to reasoning items), tools flattened, `response_format` -> `text.format`, max tokens ->
 * `max_output_tokens`. Always `store: false`, and with reasoning on, encrypted reasoning is
 * asked for so a multi-turn conversation can carry it back.
 */
export function buildResponsesBody(body: Json, upstreamModel: string, endUserHash: string | undefined, stream: boolean): Json {
  const upstream: Json = { model: upstreamModel, input: toInputItems(body.messages, customToolNames(body.tools)), store: false };
  for (const field of SAME_NAME) if (body[field] !== undefined && body[field] !== null) upstream[field] = body[field];
  // Spec §4.5 tiers OpenAI does not know: `fast` is its `priority`, and so is the best it has for `ultrafast`.
  if (upstream.service_tier === 'fast' || upstream.service_tier === 'ultrafast') upstream.service_tier = 'priority';
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (typeof maxTokens === 'number') upstream.max_output_tokens = maxTokens;
  if (body.logprobs === true && typeof body.top_logprobs === 'number') upstream.top_logprobs = body.top_logprobs;
  if (Array.isArray(body.tools)) upstream.tools = body.tools.map(toResponsesTool);
  if (body.tool_choice !== undefined && body.tool_choice !== null) upstream.tool_choice = toResponsesToolChoice(body.tool_choice);
  const text = textConfig(body);
  if (text) upstream.text = text;
  const reasoning = reasoningConfig(body);
  if (reasoning) {
    upstream.reasoning = reasoning;
    upstream.include = ['reasoning.encrypted_content'];
  }
  if (typeof body.user === 'string' && endUserHash) upstream.user = endUserHash;
  if (stream) upstream.stream = true;
  return upstream;
}

/** Messages as input items; calls of custom tools (`customTools`) and their outputs in the custom spelling. */
function toInputItems(messages: unknown, customTools: ReadonlySet<string>): Json[] {
  if (!Array.isArray(messages)) throw GatewayError.badRequest('messages must be an array');
  const items: Json[] = [];
  const customCalls = new Set<string>();
  messages.forEach((message: Json, position) => {
    switch (message.role) {
      case 'system':
      case 'developer':
      case 'user':
        items.push({ type: 'message', role: message.role, content: toInputContent(message.content, position) });
        break;
      case 'assistant':
        items.push(...assistantItems(message, customTools, customCalls));
        break;
      case 'tool': {
        const callId = String(message.tool_call_id ?? '');
        const type = customCalls.has(callId) ? 'custom_tool_call_output' : 'function_call_output';
        items.push({ type, call_id: callId, output: toolOutput(message.content, position) });
        break;
      }
      default:
        throw GatewayError.badRequest(`messages[${position}] has a role (${String(message.role)}) the Responses API does not take`);
    }
  });
  return items;
}

/** A user/system message's content as input parts (`input_text`, `input_image`, `input_file`). */
function toInputContent(content: unknown, position: number): string | Json[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: Json) => {
    switch (part.type) {
      case 'text':
        return { type: 'input_text', text: String(part.text ?? '') };
      case 'image_url': {
        const image = part.image_url as { url?: unknown; detail?: unknown } | string | undefined;
        const url = typeof image === 'string' ? image : image?.url;
        const detail = typeof image === 'object' && typeof image?.detail === 'string' ? image.detail : 'auto';
        return { type: 'input_image', image_url: String(url ?? ''), detail };
      }
      case 'file': {
        const file = (part.file ?? {}) as { file_data?: unknown; filename?: unknown; file_id?: unknown };
        const item: Json = { type: 'input_file' };
        if (typeof file.file_data === 'string') {
          if (/^https?:/.test(file.file_data)) item.file_url = file.file_data;
          else item.file_data = file.file_data;
        }
        if (typeof file.filename === 'string') item.filename = file.filename;
        if (typeof file.file_id === 'string') item.file_id = file.file_id;
        return item;
      }
      default:
        throw GatewayError.badRequest(
          `messages[${position}] has a content part of type ${String(part.type)} the Responses API does not take`,
        );
    }
  });
}

/** A tool result: its text, or its parts (the Responses API takes images and files there). */
function toolOutput(content: unknown, position: number): string | Json[] {
  if (Array.isArray(content) && (content as Json[]).some((part) => part.type !== 'text'))
    return toInputContent(content, position) as Json[];
  return textOf(content);
}

/** An assistant turn: its reasoning items first, then its text, then its function (and custom tool) calls. */
function assistantItems(message: Json, customTools: ReadonlySet<string>, customCalls: Set<string>): Json[] {
  const items: Json[] = [];
  if (Array.isArray(message.reasoning_details)) items.push(...reasoningItems(message.reasoning_details as Json[]));
  const text = textOf(message.content);
  if (text.length > 0) items.push({ type: 'message', role: 'assistant', content: text });
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls as Json[]) {
      const fn = (call.function ?? {}) as { name?: unknown; arguments?: unknown };
      const callId = String(call.id ?? '');
      if (typeof fn.name === 'string' && customTools.has(fn.name)) {
        customCalls.add(callId);
        items.push({ type: 'custom_tool_call', call_id: callId, name: fn.name, input: String(fn.arguments ?? '') });
      } else items.push({ type: 'function_call', call_id: callId, name: String(fn.name ?? ''), arguments: String(fn.arguments ?? '') });
    }
  }
  return items;
}

/**
 * Reasoning details the gateway returned from a Responses endpoint, back as reasoning items:
 * each encrypted detail of that format is one item (with the summaries of the same id).
 * Details of other providers (Anthropic thinking) cannot be read by OpenAI and are left out.
 */
function reasoningItems(details: Json[]): Json[] {
  const items: Json[] = [];
  for (const detail of details) {
    if (detail.format !== OPENAI_RESPONSES_REASONING_FORMAT || detail.type !== 'reasoning.encrypted' || typeof detail.data !== 'string')
      continue;
    const summary = details
      .filter((other) => other.type === 'reasoning.summary' && other.id === detail.id && typeof other.summary === 'string')
      .map((other) => ({ type: 'summary_text', text: other.summary as string }));
    const item: Json = { type: 'reasoning', summary, encrypted_content: detail.data };
    if (typeof detail.id === 'string') item.id = detail.id;
    items.push(item);
  }
  return items;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: Json) => (typeof part.text === 'string' ? part.text : '')).join('');
}

/** Chat's `{type: "function", function: {...}}` (and custom tools) as the Responses API's flat tools. */
function toResponsesTool(tool: Json): Json {
  if (tool.type === 'custom') {
    const custom = (tool.custom ?? {}) as Json;
    const format = (custom.format ?? {}) as Json;
    const grammar = (format.grammar ?? {}) as Json;
    return {
      type: 'custom',
      name: custom.name,
      ...(typeof custom.description === 'string' ? { description: custom.description } : {}),
      format: format.type === 'grammar' ? { type: 'grammar', syntax: grammar.syntax, definition: grammar.definition } : { type: 'text' },
    };
  }
  if (tool.type !== 'function') throw GatewayError.badRequest(`tools of type ${String(tool.type)} cannot be sent to a Responses endpoint`);
  const fn = (tool.function ?? {}) as Json;
  const flat: Json = { type: 'function', name: fn.name, parameters: fn.parameters ?? { type: 'object', properties: {} } };
  if (fn.description !== undefined) flat.description = fn.description;
  flat.strict = fn.strict ?? false;
  return flat;
}

function toResponsesToolChoice(choice: unknown): unknown {
  if (typeof choice === 'string') return choice;
  const named = choice as { type?: unknown; function?: { name?: unknown }; custom?: { name?: unknown } };
  if (named.type === 'function' && named.function) return { type: 'function', name: named.function.name };
  if (named.type === 'custom' && named.custom) return { type: 'custom', name: named.custom.name };
  return choice;
}

/** `response_format` and `verbosity` as `text: {format, verbosity}`. */
function textConfig(body: Json): Json | undefined {
  const text: Json = {};
  const format = body.response_format as Json | undefined;
  if (format && typeof format === 'object') {
    if (format.type === 'json_schema') {
      const schema = (format.json_schema ?? {}) as Json;
      text.format = {
        type: 'json_schema',
        name: schema.name ?? 'response',
        schema: schema.schema ?? {},
        ...(schema.strict !== undefined ? { strict: schema.strict } : {}),
        ...(schema.description !== undefined ? { description: schema.description } : {}),
      };
    } else if (format.type === 'json_object' || format.type === 'text') {
      text.format = { type: format.type };
    } else {
      throw GatewayError.badRequest(`response_format ${String(format.type)} cannot be sent to a Responses endpoint`);
    }
  }
  if (typeof body.verbosity === 'string') text.verbosity = body.verbosity;
  return Object.keys(text).length > 0 ? text : undefined;
}

/** `reasoning` (effort, summary) or `reasoning_effort`; `enabled: false` / effort `none` turn it off. */
function reasoningConfig(body: Json): Json | undefined {
  const reasoning = (body.reasoning !== null && typeof body.reasoning === 'object' ? body.reasoning : {}) as Json;
  const effort =
    typeof reasoning.effort === 'string' ? reasoning.effort : typeof body.reasoning_effort === 'string' ? body.reasoning_effort : undefined;
  if (reasoning.enabled === false) return undefined;
  const config: Json = {};
  if (effort !== undefined) config.effort = effort;
  if (typeof reasoning.summary === 'string') config.summary = reasoning.summary;
  if (Object.keys(config).length === 0 && reasoning.enabled !== true) return undefined;
  return config;
}
