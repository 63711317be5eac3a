import { GatewayError } from '@gw/errors';
import { hashEndUser } from '../shared-pipeline/chat-preparation.service.js';
import { answeredCallId, chatToolCallOf } from './client-tool-inputs.js';
import { translateTools, type ClientToolNames } from './client-tools.js';
import { decodeReasoningContent } from './reasoning-content.js';

type Json = Record<string, unknown>;

/**
 * Fields of a Responses body that mean the same in the internal form (a chat-completions
 * body) under the same name; routing (`model`, `models`, `provider`, `session_id`), presets
 * and the adapters read them there.
 */
const SAME_NAME = [
  'model',
  'models',
  'provider',
  'route',
  'session_id',
  'user',
  'metadata',
  'temperature',
  'top_p',
  'top_k',
  'frequency_penalty',
  'presence_penalty',
  'parallel_tool_calls',
  'service_tier',
  'prompt_cache_key',
  'prompt_cache_options',
  'cache_control',
  'modalities',
  'image_config',
  'trace',
  'debug',
  'reasoning',
  // Plugins, run by the plugin pipeline, never sent upstream.
  'plugins',
  // The server-tool loop's bounds, read by extractServerTools, never sent upstream.
  'max_tool_calls',
  'stop_server_tools_when',
] as const;

/** What the front door needs after the model call that the internal form does not carry. */
export interface ResponsesOptions {
  /** `include: ["reasoning.encrypted_content"]`: reasoning items carry `encrypted_content`. */
  includeEncryptedReasoning: boolean;
  /** `auto` drops the oldest input items to fit the context window; `disabled` (default) refuses. */
  truncation: 'auto' | 'disabled';
  /** The client's tools the model sees under another name or shape (namespaced, custom, local_shell). */
  clientTools: ClientToolNames;
}

export interface TranslatedResponsesRequest {
  /** The internal form every front door shares: a chat-completions body. */
  chatBody: Json;
  options: ResponsesOptions;
  /** `prompt.variables`, for the preset's `{{placeholders}}`. */
  presetVariables?: Record<string, string>;
}

/**
 * A Responses-API body (already bounded by the gateway's ResponsesRequestDto) as the
 * internal form: `instructions` and `input` -> messages (function calls and their
 * outputs -> assistant tool calls and tool messages; reasoning items -> the next assistant
 * message's reasoning details), tools -> chat tools (client-tools.ts), `text.format` ->
 * `response_format`, `max_output_tokens` -> `max_completion_tokens`, `prompt` -> the preset
 * it names. What cannot be served is a 400 that names it, never silently dropped.
 */
export function translateResponsesRequest(body: Json, workspaceId: string): TranslatedResponsesRequest {
  const chat: Json = {};
  for (const field of SAME_NAME) if (body[field] !== undefined && body[field] !== null) chat[field] = body[field];
  const tools = translateTools(Array.isArray(body.tools) ? (body.tools as Json[]) : []);
  chat.messages = toMessages(body.instructions, body.input, tools.names);
  if (typeof body.max_output_tokens === 'number') chat.max_completion_tokens = body.max_output_tokens;
  if (typeof body.top_logprobs === 'number') {
    chat.logprobs = true;
    chat.top_logprobs = body.top_logprobs;
  }
  if (tools.chatTools.length > 0) chat.tools = tools.chatTools;
  if (body.tool_choice !== undefined && body.tool_choice !== null) chat.tool_choice = toChatToolChoice(body.tool_choice, tools.names);
  const text = (body.text ?? {}) as { format?: Json; verbosity?: unknown };
  if (text.format) chat.response_format = toResponseFormat(text.format);
  if (typeof text.verbosity === 'string') chat.verbosity = text.verbosity;
  // Hashed here as `user` is hashed by the adapters: a provider never sees the raw value.
  if (typeof body.safety_identifier === 'string' && body.safety_identifier.length > 0)
    chat.safety_identifier = hashEndUser(workspaceId, body.safety_identifier);

  let presetVariables: Record<string, string> | undefined;
  const prompt = body.prompt as { id?: unknown; variables?: unknown } | null | undefined;
  if (prompt && typeof prompt.id === 'string') {
    chat.preset = prompt.id;
    presetVariables = promptVariables(prompt.variables);
  }
  const include = Array.isArray(body.include) ? (body.include as unknown[]) : [];
  return {
    chatBody: chat,
    options: {
      includeEncryptedReasoning: include.includes('reasoning.encrypted_content'),
      truncation: body.truncation === 'auto' ? 'auto' : 'disabled',
      clientTools: tools.names,
    },
    presetVariables,
  };
}

function toMessages(instructions: unknown, input: unknown, names: ClientToolNames): Json[] {
  const messages: Json[] = [];
  if (typeof instructions === 'string' && instructions.length > 0) messages.push({ role: 'system', content: instructions });
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return messages;
  }
  if (input === undefined || input === null) {
    if (messages.length === 0) throw GatewayError.badRequest('input is required: a string or an array of input items');
    return messages;
  }
  // Reasoning items belong to the assistant turn that follows them.
  let pendingReasoning: Json[] = [];
  const assistant = (): Json => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') return last;
    const turn: Json = { role: 'assistant', content: null };
    messages.push(turn);
    return turn;
  };
  const attachReasoning = (turn: Json): void => {
    if (pendingReasoning.length === 0) return;
    turn.reasoning_details = [...((turn.reasoning_details as Json[] | undefined) ?? []), ...pendingReasoning];
    pendingReasoning = [];
  };
  for (const [position, item] of (input as Json[]).entries()) {
    const type = item.type ?? 'message';
    switch (type) {
      case 'message': {
        const role = item.role;
        if (role === 'assistant') {
          const turn = assistant();
          attachReasoning(turn);
          const text = assistantText(item.content, position);
          turn.content = typeof turn.content === 'string' ? turn.content + text : text;
        } else if (role === 'user' || role === 'system' || role === 'developer') {
          messages.push({ role, content: toChatContent(item.content, position) });
        } else {
          throw GatewayError.badRequest(`input[${position}]: role ${String(role)} is not one of user, assistant, system, developer`);
        }
        break;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        const turn = assistant();
        attachReasoning(turn);
        turn.tool_calls = [...((turn.tool_calls as Json[] | undefined) ?? []), chatToolCallOf(item, position, names)];
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'local_shell_call_output':
        messages.push({ role: 'tool', tool_call_id: answeredCallId(item, position), content: outputContent(item.output, position) });
        break;
      case 'reasoning':
        pendingReasoning.push(...decodeReasoningContent(item));
        break;
      case 'web_search_call':
        // A search this gateway ran in an earlier response, sent back with the rest of
        // its output: the answer that used it follows as a message, so there is nothing to replay.
        break;
      case 'item_reference':
        throw GatewayError.badRequest(
          `input[${position}]: item_reference needs stored responses, which this gateway does not keep: send the item itself (with the Vercel AI SDK, providerOptions.openai.store = false)`,
        );
      default:
        throw GatewayError.badRequest(`input[${position}]: items of type ${String(type)} are not supported`);
    }
  }
  if (messages.length === 0) throw GatewayError.badRequest('input must hold at least one item');
  return messages;
}

/** A user / system / developer message's content as chat content parts. */
function toChatContent(content: unknown, position: number): string | Json[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw GatewayError.badRequest(`input[${position}].content must be a string or an array of content parts`);
  return (content as Json[]).map((part, index) => withCacheMarkers(part, toChatPart(part, `input[${position}].content[${index}]`)));
}

/** A block-level cache breakpoint (`cache_control`, `prompt_cache_breakpoint`) stays on the part it marks. */
function withCacheMarkers(part: Json, chatPart: Json): Json {
  if (part.cache_control !== undefined) chatPart.cache_control = part.cache_control;
  if (part.prompt_cache_breakpoint !== undefined) chatPart.prompt_cache_breakpoint = part.prompt_cache_breakpoint;
  return chatPart;
}

function toChatPart(part: Json, where: string): Json {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: String(part.text ?? '') };
    case 'input_image': {
      if (typeof part.image_url !== 'string' || part.image_url.length === 0) {
        throw GatewayError.badRequest(
          `${where}: input_image needs an image_url (a URL or a data: URL); file_id needs stored files, which this gateway does not keep`,
        );
      }
      return { type: 'image_url', image_url: { url: part.image_url, ...(typeof part.detail === 'string' ? { detail: part.detail } : {}) } };
    }
    case 'input_file': {
      const data = typeof part.file_data === 'string' ? part.file_data : typeof part.file_url === 'string' ? part.file_url : undefined;
      if (!data)
        throw GatewayError.badRequest(
          `${where}: input_file needs file_data or file_url; file_id needs stored files, which this gateway does not keep`,
        );
      return { type: 'file', file: { file_data: data, ...(typeof part.filename === 'string' ? { filename: part.filename } : {}) } };
    }
    default:
      throw GatewayError.badRequest(`${where}: content parts of type ${String(part.type)} are not supported`);
  }
}

/** An assistant message's text (its `output_text` / `refusal` parts, or a string). */
function assistantText(content: unknown, position: number): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw GatewayError.badRequest(`input[${position}].content must be a string or an array of content parts`);
  return (content as Json[])
    .map((part) => (typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : ''))
    .join('');
}

/**
 * A function_call_output's output: a string, or its parts: text joined when that is all, else
 * as chat content parts (images and files; the adapters place them where each API takes them).
 */
function outputContent(output: unknown, position: number): string | Json[] {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) throw GatewayError.badRequest(`input[${position}].output must be a string or an array of content parts`);
  const parts = output as Json[];
  if (parts.every((part) => part.type === 'input_text' || part.type === 'output_text'))
    return parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
  return parts.map((part, index) => toChatPart(part, `input[${position}].output[${index}]`));
}

function toChatToolChoice(choice: unknown, names: ClientToolNames): unknown {
  if (typeof choice === 'string') return choice;
  const named = choice as { type?: unknown; name?: unknown };
  if (named.type === 'custom' && typeof named.name === 'string') {
    const tool = names.get(named.name);
    if (tool?.kind === 'custom' && tool.grammar) return { type: 'custom', custom: { name: named.name } };
  }
  if ((named.type === 'function' || named.type === 'custom') && typeof named.name === 'string')
    return { type: 'function', function: { name: named.name } };
  throw GatewayError.badRequest(
    `tool_choice of type ${String(named.type)} is not supported; use "auto", "none", "required", {type: "function", name} or {type: "custom", name}`,
  );
}

function toResponseFormat(format: Json): Json {
  if (format.type === 'json_schema') {
    const schema: Json = { name: format.name, schema: format.schema };
    if (typeof format.strict === 'boolean') schema.strict = format.strict;
    if (typeof format.description === 'string') schema.description = format.description;
    return { type: 'json_schema', json_schema: schema };
  }
  return { type: format.type };
}

/** Stored-prompt variables as text: a string or an `input_text` part; images and files cannot go into a system prompt. */
function promptVariables(variables: unknown): Record<string, string> | undefined {
  if (variables === undefined || variables === null) return undefined;
  const filled: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables as Json)) {
    if (typeof value === 'string') filled[name] = value;
    else if (
      value !== null &&
      typeof value === 'object' &&
      (value as Json).type === 'input_text' &&
      typeof (value as Json).text === 'string'
    )
      filled[name] = (value as Json).text as string;
    else throw GatewayError.badRequest(`prompt.variables.${name} must be a string or an input_text part`);
  }
  return filled;
}
