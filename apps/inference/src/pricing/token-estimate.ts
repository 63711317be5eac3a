/** Rough tokens per character of English text, the usual rule of thumb (about 4 characters a token). */
const CHARS_PER_TOKEN = 4;
/** Role and framing tokens a chat format adds per message. */
const TOKENS_PER_MESSAGE = 4;

/** Token estimate for a provider that reported no usage. */
export function estimateTokens(text: string): number {
  return estimateTokensOfLength(text.length);
}

/**
 * The prompt's text for an estimate, given as is or as a function that builds it: adapters pass
 * `() => JSON.stringify(messages)`, which then runs only when the provider sent no counts (a
 * serialisation of the whole prompt per request otherwise spent for nothing).
 */
export type PromptText = string | (() => string);

export function estimatePromptText(promptText: PromptText): number {
  return estimateTokens(typeof promptText === 'string' ? promptText : promptText());
}

export function estimateTokensOfLength(characters: number): number {
  return Math.ceil(characters / CHARS_PER_TOKEN);
}

/**
 * Estimated prompt tokens of a chat-completions `messages` array: the text of every message
 * (string content, text parts, tool-call arguments) plus a per-message overhead. Images and
 * audio are not counted (their price is per provider); the estimate only stands in when a
 * provider never sent counts.
 */
export function estimatePromptTokens(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let characters = 0;
  for (const message of messages as Array<Record<string, unknown> | null>) {
    if (!message || typeof message !== 'object') continue;
    characters += textLength(message.content);
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>) {
        characters += stringLength(call?.function?.name) + stringLength(call?.function?.arguments);
      }
    }
  }
  return estimateTokensOfLength(characters) + TOKENS_PER_MESSAGE * messages.length;
}

function textLength(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  let characters = 0;
  for (const part of content as Array<{ text?: unknown } | null>) characters += stringLength(part?.text);
  return characters;
}

function stringLength(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}

/**
 * The most completion tokens a chat answer can have: `max_completion_tokens` (else `max_tokens`)
 * for each of its `n` choices; undefined when the request sets no maximum.
 */
export function completionTokenBound(body: Record<string, unknown>): number | undefined {
  const asked = positiveInt(body.max_completion_tokens) ?? positiveInt(body.max_tokens);
  return asked === undefined ? undefined : asked * (positiveInt(body.n) ?? 1);
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
