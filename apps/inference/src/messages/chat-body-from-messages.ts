import { GatewayError } from '@gw/errors';
import { refusePluginsOnMessages } from '../plugins/plugin-request.js';
import { ANTHROPIC_REASONING_FORMAT } from '../providers/anthropic/anthropic-messages.js';

type Block = Record<string, unknown> & { type?: unknown };
type ChatMessage = Record<string, unknown>;

/** Fields of a Messages body that have a chat-completions counterpart, translated below. */
const TRANSLATED = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'metadata',
  'stream',
  'output_config',
  'output_format',
]);

/**
 * Anthropic Messages fields with no chat-completions counterpart, sent as they are to an
 * Anthropic-format endpoint. Refused on an OpenAI-format one: the answer would be wrong
 * without them (a container's files, an MCP server's tools), or the data would be processed
 * outside the region `inference_geo` asked for.
 */
export const ANTHROPIC_ONLY_FIELDS = ['container', 'mcp_servers', 'inference_geo'] as const;

/**
 * Anthropic-only fields an OpenAI-format endpoint cannot honour but the answer stays right
 * without: `context_management` only trims old context, top-level `cache_control` only caches
 * the prompt, `speed` only asks for faster output, `diagnostics` only explains cache misses.
 * Left out there, and the answer says so (`gateway_warnings`, the `x-gateway-warning` header).
 */
export const DROPPABLE_FIELDS = ['context_management', 'cache_control', 'speed', 'diagnostics'] as const;

/**
 * Fields kept in the chat form as sent: the gateway's own (routing, presets, trace; plugins
 * and the server-tool bounds are refused before) and `service_tier`, which routing reads.
 */
const KEPT_AS_SENT = new Set([
  'provider',
  'models',
  'route',
  'session_id',
  'preset',
  'trace',
  'plugins',
  'max_tool_calls',
  'stop_server_tools_when',
  'service_tier',
]);

/**
 * A `POST /v1/messages` body as the gateway's internal form, a chat-completions body: what
 * presets, routing, pricing and OpenAI-format endpoints work from (docs/adr: messages front
 * door). Gateway fields the client adds (`provider`, `models`, `preset`, `session_id`, ...)
 * are kept as they are; any other field is served by no endpoint (see unservedFields).
 */
export function chatBodyFromMessages(body: Record<string, unknown>): Record<string, unknown> {
  // Plugins rewrite the chat form, which the native relay to Anthropic endpoints does not send.
  refusePluginsOnMessages(body);
  refuseServiceTools(body);
  const chat: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) if (KEPT_AS_SENT.has(field)) chat[field] = value;
  chat.model = body.model;
  chat.max_tokens = body.max_tokens;
  chat.messages = [...systemMessages(body.system), ...conversation(body.messages)];
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) chat.stop = body.stop_sequences;
  for (const field of ['temperature', 'top_p', 'top_k'] as const) if (typeof body[field] === 'number') chat[field] = body[field];
  if (body.stream === true) chat.stream = true;
  const user = (body.metadata as { user_id?: unknown } | undefined)?.user_id;
  if (typeof user === 'string' && user.length > 0) chat.user = user;
  const tools = chatTools(body.tools);
  if (tools) chat.tools = tools;
  Object.assign(chat, chatToolChoice(body.tool_choice));
  // A thinking budget already says how hard to think: effort only where none was given.
  const budgeted = reasoningOf(body.thinking);
  const effort = effortOf(body.output_config);
  const reasoning = budgeted?.max_tokens !== undefined ? budgeted : { ...budgeted, ...effort };
  if (Object.keys(reasoning).length > 0) chat.reasoning = reasoning;
  const format = responseFormatOf(body);
  if (format) chat.response_format = format;
  return chat;
}

const ANTHROPIC_FIELDS = new Set<string>([...ANTHROPIC_ONLY_FIELDS, ...DROPPABLE_FIELDS]);

/** The body's fields that are neither the Messages API's nor the gateway's: no endpoint gets them, and the answer says so. */
export function unservedFields(body: Record<string, unknown>): string[] {
  return Object.keys(body).filter(
    (field) =>
      !TRANSLATED.has(field) &&
      !ANTHROPIC_FIELDS.has(field) &&
      !KEPT_AS_SENT.has(field) &&
      body[field] !== undefined &&
      body[field] !== null,
  );
}

const EFFORTS = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

/** `output_config.effort` as the chat form's reasoning effort (the same five words as OpenAI's). */
function effortOf(config: unknown): Record<string, unknown> {
  const effort = (config as { effort?: unknown } | null | undefined)?.effort;
  if (effort === undefined || effort === null) return {};
  if (typeof effort !== 'string' || !EFFORTS.has(effort))
    throw GatewayError.badRequest('output_config.effort must be one of low, medium, high, xhigh, max', { param: 'output_config.effort' });
  return { effort };
}

/**
 * Structured outputs: `output_config.format` (and the older `output_format`), a JSON schema,
 * as the chat form's `response_format` so OpenAI-format models answer in that schema too.
 */
function responseFormatOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const format = outputFormatOf(body);
  if (!format) return undefined;
  return { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } };
}

/** The requested JSON-schema output format, from `output_config.format` or `output_format`; undefined when none. */
function outputFormatOf(body: Record<string, unknown>): { type: 'json_schema'; schema: Record<string, unknown> } | undefined {
  const config = body.output_config;
  if (config !== undefined && config !== null && (typeof config !== 'object' || Array.isArray(config)))
    throw GatewayError.badRequest('output_config must be an object', { param: 'output_config' });
  const fromConfig = (config as { format?: unknown } | null | undefined)?.format;
  const format = fromConfig ?? body.output_format;
  if (format === undefined || format === null) return undefined;
  const { type, schema } = format as Record<string, unknown>;
  const param = fromConfig === undefined || fromConfig === null ? 'output_format' : 'output_config.format';
  if (type !== 'json_schema') throw GatewayError.badRequest(`${param}.type must be "json_schema"`, { param });
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw GatewayError.badRequest(`${param}.schema must be a JSON schema object`, { param });
  return { type, schema: schema as Record<string, unknown> };
}

function systemMessages(system: unknown): ChatMessage[] {
  if (system === undefined || system === null) return [];
  if (typeof system === 'string') return system.length > 0 ? [{ role: 'system', content: system }] : [];
  if (!Array.isArray(system)) throw GatewayError.badRequest('system must be a string or an array of text blocks');
  const parts = (system as Block[]).map((block, index) => {
    if (block.type !== 'text' || typeof block.text !== 'string') throw GatewayError.badRequest(`system[${index}] must be a text block`);
    return textPart(block);
  });
  return parts.length > 0 ? [{ role: 'system', content: parts }] : [];
}

function textPart(block: Block): Record<string, unknown> {
  const part: Record<string, unknown> = { type: 'text', text: block.text };
  if (block.cache_control !== undefined) part.cache_control = block.cache_control;
  return part;
}

function conversation(messages: unknown): ChatMessage[] {
  if (!Array.isArray(messages)) throw GatewayError.badRequest('messages must be an array');
  return (messages as Array<{ role?: unknown; content?: unknown }>).flatMap((message, position) => {
    if (message.role === 'user') return userMessages(message.content, position);
    if (message.role === 'assistant') return [assistantMessage(message.content, position)];
    // Mid-conversation instructions (Claude Code's): a system message in place, which chat takes anywhere.
    if (message.role === 'system') return systemMessages(message.content);
    throw GatewayError.badRequest(`messages[${position}].role must be "user", "assistant" or "system"`);
  });
}

/** A user turn: its tool results first (each a `tool` message, as OpenAI wants them), then the rest. */
function userMessages(content: unknown, position: number): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const toolMessages: ChatMessage[] = [];
  const parts: Array<Record<string, unknown>> = [];
  (content as Block[]).forEach((block, index) => {
    const where = `messages[${position}].content[${index}]`;
    switch (block.type) {
      case 'text':
        parts.push(textPart(block));
        break;
      case 'image':
        parts.push({ type: 'image_url', image_url: { url: sourceUrl(block.source, where) } });
        break;
      case 'document':
        parts.push(documentPart(block, where));
        break;
      case 'tool_result':
        toolMessages.push({
          role: 'tool',
          tool_call_id: block.tool_use_id,
          content: toolResultContent(block.content, block.is_error === true, where),
        });
        break;
      default:
        throw GatewayError.badRequest(`${where}: a "${String(block.type)}" block cannot be sent in a user turn to this model`);
    }
  });
  return parts.length > 0 ? [...toolMessages, { role: 'user', content: parts }] : toolMessages;
}

function assistantMessage(content: unknown, position: number): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const text: string[] = [];
  const toolCalls: Array<Record<string, unknown>> = [];
  const reasoningDetails: Array<Record<string, unknown>> = [];
  (content as Block[]).forEach((block, index) => {
    switch (block.type) {
      case 'text':
        text.push(String(block.text ?? ''));
        break;
      case 'tool_use':
        toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
        break;
      case 'thinking':
        reasoningDetails.push({
          type: 'reasoning.text',
          text: block.thinking,
          signature: block.signature,
          format: ANTHROPIC_REASONING_FORMAT,
          index,
        });
        break;
      case 'redacted_thinking':
        reasoningDetails.push({ type: 'reasoning.encrypted', data: block.data, format: ANTHROPIC_REASONING_FORMAT, index });
        break;
      default:
        throw GatewayError.badRequest(
          `messages[${position}].content[${index}]: a "${String(block.type)}" block cannot be sent in an assistant turn to this model`,
        );
    }
  });
  const message: ChatMessage = { role: 'assistant', content: text.length > 0 ? text.join('') : null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoningDetails.length > 0) message.reasoning_details = reasoningDetails;
  return message;
}

/** An image or document source as a URL: base64 data becomes a data: URL. */
function sourceUrl(source: unknown, where: string): string {
  const src = (source ?? {}) as Record<string, unknown>;
  if (src.type === 'base64' && typeof src.media_type === 'string' && typeof src.data === 'string')
    return `data:${src.media_type};base64,${src.data}`;
  if (src.type === 'url' && typeof src.url === 'string') return src.url;
  throw GatewayError.badRequest(`${where}.source must be {type: "base64", media_type, data} or {type: "url", url}`);
}

function documentPart(block: Block, where: string): Record<string, unknown> {
  const source = (block.source ?? {}) as Record<string, unknown>;
  if (source.type === 'text' && typeof source.data === 'string') return { type: 'text', text: source.data };
  const part: Record<string, unknown> = {
    type: 'file',
    file: { file_data: sourceUrl(source, where), ...(typeof block.title === 'string' ? { filename: block.title } : {}) },
  };
  return part;
}

/**
 * A tool result's content: its text, or chat content parts when it holds images or documents
 * (the adapters place them where each API takes them). An error is said before the text.
 */
function toolResultContent(content: unknown, isError: boolean, where: string): string | Array<Record<string, unknown>> {
  const prefix = isError ? 'Error: ' : '';
  if (content === undefined || content === null) return prefix;
  if (typeof content === 'string') return prefix + content;
  if (!Array.isArray(content)) throw GatewayError.badRequest(`${where}.content must be a string or content blocks`);
  const parts = (content as Block[]).map((block, index): Record<string, unknown> => {
    // Tool search's answer (a deferred tool made callable): chat tools are all sent in full, so it is only a note.
    if (block.type === 'tool_reference') return { type: 'text', text: `Tool loaded: ${String(block.tool_name)}` };
    if (block.type === 'text') return { type: 'text', text: String(block.text ?? '') };
    if (block.type === 'image') return { type: 'image_url', image_url: { url: sourceUrl(block.source, `${where}.content[${index}]`) } };
    if (block.type === 'document') return documentPart(block, `${where}.content[${index}]`);
    throw GatewayError.badRequest(
      `${where}.content[${index}]: a "${String(block.type)}" block cannot be sent in a tool result to this model`,
    );
  });
  if (parts.every((part) => part.type === 'text')) return prefix + parts.map((part) => String(part.text)).join('');
  return isError ? [{ type: 'text', text: 'Error:' }, ...parts] : parts;
}

/**
 * The gateway's server tools (`service:web_search`) run on /v1/chat/completions and
 * /v1/responses only: the Messages front door relays Anthropic-format bodies natively and has
 * no loop. A 400 naming them, never a raw tool sent on to the provider.
 */
function refuseServiceTools(body: Record<string, unknown>): void {
  const tools = Array.isArray(body.tools) ? (body.tools as Block[]) : [];
  const service = tools.find((tool) => typeof tool?.type === 'string' && tool.type.startsWith('service:'));
  if (service) {
    throw GatewayError.badRequest(
      `${String(service.type)} is run by the service on /v1/chat/completions and /v1/responses, not on /v1/messages; use one of those, or Anthropic's own web_search tool on an Anthropic model`,
      { param: 'tools', reason: 'unsupported_tool' },
    );
  }
  for (const field of ['max_tool_calls', 'stop_server_tools_when']) {
    if (body[field] !== undefined && body[field] !== null) {
      throw GatewayError.badRequest(
        `${field} bounds the server-tool loop of /v1/chat/completions and /v1/responses; /v1/messages has none`,
        { param: field, reason: 'unsupported_parameter' },
      );
    }
  }
}

/** Custom tools ({name, description, input_schema}) as function tools; server tools stay as sent. */
function chatTools(tools: unknown): Array<Record<string, unknown>> | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return (tools as Block[]).map((tool) => {
    if (tool.type !== undefined && tool.type !== 'custom') return tool;
    const fn: Record<string, unknown> = { name: tool.name, parameters: tool.input_schema ?? { type: 'object', properties: {} } };
    if (typeof tool.description === 'string') fn.description = tool.description;
    const translated: Record<string, unknown> = { type: 'function', function: fn };
    if (tool.cache_control !== undefined) translated.cache_control = tool.cache_control;
    return translated;
  });
}

/** auto -> auto, any -> required, tool -> that function, none -> none; disable_parallel_tool_use -> parallel_tool_calls: false. */
function chatToolChoice(choice: unknown): Record<string, unknown> {
  if (choice === undefined || choice === null) return {};
  const { type, name, disable_parallel_tool_use: noParallel } = choice as Record<string, unknown>;
  const translated: Record<string, unknown> = {};
  if (type === 'auto') translated.tool_choice = 'auto';
  else if (type === 'any') translated.tool_choice = 'required';
  else if (type === 'none') translated.tool_choice = 'none';
  else if (type === 'tool' && typeof name === 'string') translated.tool_choice = { type: 'function', function: { name } };
  else throw GatewayError.badRequest('tool_choice must be {type: "auto" | "any" | "none"} or {type: "tool", name}');
  if (noParallel === true) translated.parallel_tool_calls = false;
  return translated;
}

/** enabled + budget_tokens -> reasoning.max_tokens; disabled -> off; adaptive -> on at the provider's choice. */
function reasoningOf(thinking: unknown): Record<string, unknown> | undefined {
  if (thinking === undefined || thinking === null) return undefined;
  const { type, budget_tokens: budget } = thinking as Record<string, unknown>;
  if (type === 'enabled') {
    if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1024)
      throw GatewayError.badRequest('thinking.budget_tokens must be an integer of at least 1024');
    return { max_tokens: budget };
  }
  if (type === 'disabled') return { enabled: false };
  if (type === 'adaptive') return { enabled: true };
  throw GatewayError.badRequest('thinking.type must be "enabled", "disabled" or "adaptive"');
}
