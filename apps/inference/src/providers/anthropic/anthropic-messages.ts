import { GatewayError } from '@gw/errors';
import { blockCacheControl } from './anthropic-caching.js';

/** One content block of Anthropic's Messages API (text, image, document, tool_use, tool_result, thinking, ...). */
export type AnthropicBlock = Record<string, unknown> & { type: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export interface TranslatedConversation {
  /** Text blocks of every system / developer message, in order; undefined when there are none. */
  system: AnthropicBlock[] | undefined;
  messages: AnthropicMessage[];
}

type OpenAiMessage = Record<string, unknown> & { role?: unknown; content?: unknown };

/** Marks the reasoning details this gateway emits for Anthropic thinking blocks. */
export const ANTHROPIC_REASONING_FORMAT = 'anthropic-claude-v1';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/**
 * OpenAI chat messages as Anthropic's `system` + alternating `messages`:
 * - system and developer messages go to the top-level `system` (Anthropic has no system role),
 *   wherever they stood in the conversation;
 * - assistant `tool_calls` become `tool_use` blocks (the arguments string parsed to `input`);
 * - `role: tool` messages become `tool_result` blocks in a user turn;
 * - consecutive turns of one role merge into one turn (so several tool results, and a user
 *   message after them, form one user turn, as Anthropic requires).
 */
export function translateConversation(messages: unknown): TranslatedConversation {
  if (!Array.isArray(messages)) throw GatewayError.badRequest('messages must be an array');
  const system: AnthropicBlock[] = [];
  const turns: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], content: AnthropicBlock[]): void => {
    if (content.length === 0) return;
    const last = turns[turns.length - 1];
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  messages.forEach((raw: OpenAiMessage, position) => {
    switch (raw.role) {
      case 'system':
      case 'developer':
        system.push(...textBlocks(raw.content, position));
        break;
      case 'user':
        push('user', userBlocks(raw.content, position));
        break;
      case 'assistant':
        push('assistant', assistantBlocks(raw, position));
        break;
      case 'tool':
        push('user', [toolResultBlock(raw, position)]);
        break;
      default:
        throw GatewayError.badRequest(`messages[${position}].role "${String(raw.role)}" cannot be sent to this provider`);
    }
  });
  if (turns.length === 0) throw GatewayError.badRequest('messages must contain at least one user or assistant message for this provider');
  return { system: system.length > 0 ? system : undefined, messages: turns };
}

/** Text parts only (system messages). Empty text is dropped: Anthropic refuses it. */
function textBlocks(content: unknown, position: number): AnthropicBlock[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw GatewayError.badRequest(`messages[${position}].content must be a string or an array of parts`);
  return content.flatMap((part: Record<string, unknown>) => {
    if (part.type !== 'text')
      throw GatewayError.badRequest(`messages[${position}] may only hold text parts here, not "${String(part.type)}"`);
    return textPart(part);
  });
}

function textPart(part: Record<string, unknown>): AnthropicBlock[] {
  if (typeof part.text !== 'string' || part.text.length === 0) return [];
  const block: AnthropicBlock = { type: 'text', text: part.text };
  // Prompt caching: a part's cache_control / prompt_cache_breakpoint is Anthropic's cache_control.
  const cacheControl = blockCacheControl(part);
  if (cacheControl) block.cache_control = cacheControl;
  return [block];
}

function userBlocks(content: unknown, position: number): AnthropicBlock[] {
  if (content === null || content === undefined || typeof content === 'string') return textBlocks(content, position);
  if (!Array.isArray(content)) throw GatewayError.badRequest(`messages[${position}].content must be a string or an array of parts`);
  return content.flatMap((part: Record<string, unknown>): AnthropicBlock[] => {
    switch (part.type) {
      case 'text':
        return textPart(part);
      case 'image_url':
        return [imageBlock(part, position)];
      case 'file':
        return [documentBlock(part, position)];
      default:
        throw GatewayError.badRequest(`messages[${position}] has a "${String(part.type)}" part, which this provider cannot read`);
    }
  });
}

/** `image_url` (a data: URL or an http(s) URL) as an image block with a base64 or url source. */
function imageBlock(part: Record<string, unknown>, position: number): AnthropicBlock {
  const imageUrl = part.image_url as { url?: unknown } | string | undefined;
  const url = typeof imageUrl === 'string' ? imageUrl : imageUrl?.url;
  if (typeof url !== 'string' || url.length === 0)
    throw GatewayError.badRequest(`messages[${position}] has an image_url part without a url`);
  const block: AnthropicBlock = { type: 'image', source: mediaSource(url, position, 'image') };
  const cacheControl = blockCacheControl(part);
  if (cacheControl) block.cache_control = cacheControl;
  return block;
}

/** A `file` part (PDF as a data: URL in `file_data`, or a URL) as a document block. */
function documentBlock(part: Record<string, unknown>, position: number): AnthropicBlock {
  const file = (part.file ?? {}) as { file_data?: unknown; filename?: unknown };
  if (typeof file.file_data !== 'string') throw GatewayError.badRequest(`messages[${position}] has a file part without file_data`);
  const block: AnthropicBlock = { type: 'document', source: mediaSource(file.file_data, position, 'file') };
  if (typeof file.filename === 'string') block.title = file.filename;
  const cacheControl = blockCacheControl(part);
  if (cacheControl) block.cache_control = cacheControl;
  return block;
}

function mediaSource(url: string, position: number, what: string): Record<string, string> {
  const data = DATA_URL.exec(url);
  if (data) return { type: 'base64', media_type: data[1]!, data: data[2]! };
  if (/^https?:\/\//i.test(url)) return { type: 'url', url };
  throw new GatewayError(400, `messages[${position}] has an ${what} that is neither a base64 data: URL nor an http(s) URL`, {
    errorType: what === 'image' ? 'invalid_image' : 'invalid_request',
  });
}

/**
 * An assistant turn: replayed thinking first (Anthropic requires the signed thinking blocks
 * of a tool-use turn to come back unchanged), then text, then tool_use blocks.
 */
function assistantBlocks(message: OpenAiMessage, position: number): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [...thinkingBlocks(message.reasoning_details)];
  blocks.push(...textBlocks(message.content, position));
  const toolCalls = message.tool_calls;
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls)) throw GatewayError.badRequest(`messages[${position}].tool_calls must be an array`);
    toolCalls.forEach((call: Record<string, unknown>, index) => blocks.push(toolUseBlock(call, position, index)));
  }
  return blocks;
}

function toolUseBlock(call: Record<string, unknown>, position: number, index: number): AnthropicBlock {
  const fn = (call.function ?? {}) as { name?: unknown; arguments?: unknown };
  const where = `messages[${position}].tool_calls[${index}]`;
  if (typeof call.id !== 'string' || typeof fn.name !== 'string') throw GatewayError.badRequest(`${where} needs an id and a function name`);
  return { type: 'tool_use', id: call.id, name: fn.name, input: parseArguments(fn.arguments, where) };
}

/** OpenAI carries arguments as a JSON string; Anthropic wants the object. */
function parseArguments(raw: unknown, where: string): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw === 'string') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // reported below
    }
  }
  throw GatewayError.badRequest(`${where}.function.arguments must be a JSON object encoded as a string`);
}

/** reasoning_details this gateway returned for thinking blocks, turned back into them. */
function thinkingBlocks(details: unknown): AnthropicBlock[] {
  if (!Array.isArray(details)) return [];
  return details.flatMap((detail: Record<string, unknown>): AnthropicBlock[] => {
    if (detail?.type === 'reasoning.text' && typeof detail.text === 'string' && typeof detail.signature === 'string') {
      return [{ type: 'thinking', thinking: detail.text, signature: detail.signature }];
    }
    if (detail?.type === 'reasoning.encrypted' && typeof detail.data === 'string')
      return [{ type: 'redacted_thinking', data: detail.data }];
    return [];
  });
}

function toolResultBlock(message: OpenAiMessage, position: number): AnthropicBlock {
  if (typeof message.tool_call_id !== 'string' || message.tool_call_id.length === 0) {
    throw GatewayError.badRequest(`messages[${position}] (role tool) needs a tool_call_id`);
  }
  const block: AnthropicBlock = { type: 'tool_result', tool_use_id: message.tool_call_id };
  // A tool result may hold images and documents besides text: Anthropic takes them inside it.
  if (typeof message.content === 'string') block.content = message.content;
  else block.content = userBlocks(message.content, position);
  return block;
}
