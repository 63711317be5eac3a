import { GatewayError } from '@gw/errors';

/** One part of a Gemini `Content` (text, inlineData, fileData, functionCall, functionResponse, ...). */
export type GeminiPart = Record<string, unknown>;

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** Marks the reasoning details that carry Gemini's thought signatures back to it. */
export const GEMINI_REASONING_FORMAT = 'google-gemini-v1';

type OpenAiMessage = Record<string, unknown> & { role?: unknown; content?: unknown };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** Media types by file extension, for image URLs Gemini is to fetch itself (`fileData`). */
const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  gif: 'image/gif',
  pdf: 'application/pdf',
};

/**
 * OpenAI chat messages as Gemini's `systemInstruction` + `contents`:
 * system and developer messages go to `systemInstruction`; assistant turns are `model` turns
 * whose tool calls are `functionCall` parts (with the thought signature Gemini gave them, kept
 * in reasoning_details); `tool` messages are `functionResponse` parts of a user turn, named
 * after the call they answer; consecutive turns of one role merge, as Gemini expects.
 */
export function translateContents(messages: unknown): { systemInstruction?: { parts: GeminiPart[] }; contents: GeminiContent[] } {
  if (!Array.isArray(messages)) throw GatewayError.badRequest('messages must be an array');
  const system: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  const callNames = new Map<string, string>();
  const push = (role: GeminiContent['role'], parts: GeminiPart[]): void => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((raw: OpenAiMessage, position) => {
    switch (raw.role) {
      case 'system':
      case 'developer':
        system.push(...textParts(raw.content, position));
        break;
      case 'user':
        push('user', userParts(raw.content, position));
        break;
      case 'assistant':
        push('model', modelParts(raw, position, callNames));
        break;
      case 'tool':
        push('user', [functionResponse(raw, position, callNames)]);
        break;
      default:
        throw GatewayError.badRequest(`messages[${position}].role "${String(raw.role)}" cannot be sent to this provider`);
    }
  });
  if (contents.length === 0)
    throw GatewayError.badRequest('messages must contain at least one user or assistant message for this provider');
  return system.length > 0 ? { systemInstruction: { parts: system }, contents } : { contents };
}

function textParts(content: unknown, position: number): GeminiPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content.length > 0 ? [{ text: content }] : [];
  if (!Array.isArray(content)) throw GatewayError.badRequest(`messages[${position}].content must be a string or an array of parts`);
  return content.flatMap((part: Record<string, unknown>) => {
    if (part?.type !== 'text')
      throw GatewayError.badRequest(`messages[${position}] may only hold text parts here, not "${String(part?.type)}"`);
    return typeof part.text === 'string' && part.text.length > 0 ? [{ text: part.text }] : [];
  });
}

function userParts(content: unknown, position: number): GeminiPart[] {
  if (typeof content === 'string' || content === null || content === undefined) return textParts(content, position);
  if (!Array.isArray(content)) throw GatewayError.badRequest(`messages[${position}].content must be a string or an array of parts`);
  return content.flatMap((part: Record<string, unknown>, index): GeminiPart[] => {
    switch (part?.type) {
      case 'text':
        return typeof part.text === 'string' && part.text.length > 0 ? [{ text: part.text }] : [];
      case 'image_url': {
        const url = (part.image_url as { url?: unknown } | undefined)?.url;
        return [mediaPart(url, `messages[${position}].content[${index}].image_url.url`)];
      }
      case 'file': {
        const file = (part.file ?? {}) as { file_data?: unknown; filename?: unknown };
        return [mediaPart(file.file_data, `messages[${position}].content[${index}].file.file_data`)];
      }
      default:
        throw GatewayError.badRequest(
          `messages[${position}].content[${index}].type "${String(part?.type)}" is not supported by this model's provider (Gemini)`,
        );
    }
  });
}

/** A data URL travels inline; any other URL is handed to Gemini to fetch (`fileData`), typed by its extension. */
function mediaPart(url: unknown, where: string): GeminiPart {
  if (typeof url !== 'string' || url.length === 0) throw GatewayError.badRequest(`${where} must be a URL or a data URL`);
  const inline = DATA_URL.exec(url);
  if (inline) return { inlineData: { mimeType: inline[1], data: inline[2] } };
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  const mimeType = extension ? MIME_BY_EXTENSION[extension] : undefined;
  if (!mimeType) throw GatewayError.badRequest(`${where}: the media type of ${url} cannot be told from its name; send it as a data URL`);
  return { fileData: { mimeType, fileUri: url } };
}

function modelParts(raw: OpenAiMessage, position: number, callNames: Map<string, string>): GeminiPart[] {
  const parts = typeof raw.content === 'string' || Array.isArray(raw.content) ? textParts(raw.content, position) : [];
  const signatures = thoughtSignatures(raw.reasoning_details);
  const calls = Array.isArray(raw.tool_calls) ? raw.tool_calls : [];
  calls.forEach((call: Record<string, unknown>, index) => {
    const fn = (call?.function ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof fn.name !== 'string') throw GatewayError.badRequest(`messages[${position}].tool_calls[${index}].function.name is required`);
    if (typeof call.id === 'string') callNames.set(call.id, fn.name);
    const part: GeminiPart = { functionCall: { name: fn.name, args: parseArguments(fn.arguments, position, index) } };
    const signature = typeof call.id === 'string' ? signatures.get(call.id) : undefined;
    if (signature) part.thoughtSignature = signature;
    parts.push(part);
  });
  return parts;
}

/** Thought signatures by tool call id, from the reasoning_details this adapter emitted. */
function thoughtSignatures(details: unknown): Map<string, string> {
  const byId = new Map<string, string>();
  if (!Array.isArray(details)) return byId;
  for (const detail of details as Array<Record<string, unknown>>) {
    if (detail?.format === GEMINI_REASONING_FORMAT && typeof detail.id === 'string' && typeof detail.data === 'string')
      byId.set(detail.id, detail.data);
  }
  return byId;
}

function parseArguments(value: unknown, position: number, index: number): Record<string, unknown> {
  if (value === undefined || value === '') return {};
  try {
    const parsed: unknown = JSON.parse(String(value));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw GatewayError.badRequest(`messages[${position}].tool_calls[${index}].function.arguments must be a JSON object`);
}

/** Gemini names a function response after its function, not the call id: the name comes from the call it answers. */
function functionResponse(raw: OpenAiMessage, position: number, callNames: Map<string, string>): GeminiPart {
  const id = raw.tool_call_id;
  const name = typeof id === 'string' ? callNames.get(id) : undefined;
  if (!name)
    throw GatewayError.badRequest(`messages[${position}].tool_call_id does not answer a tool call of an earlier assistant message`);
  const text =
    typeof raw.content === 'string'
      ? raw.content
      : textParts(raw.content, position)
          .map((part) => String(part.text))
          .join('');
  return { functionResponse: { name, response: { result: text } } };
}
