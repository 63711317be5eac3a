/** Who counted, as the `/v1/messages/count_tokens` answer names it: OpenAI's current encoding. */
export const CHAT_TOKENIZER = 'gpt-tokenizer:o200k_base';

/** The framing OpenAI documents for chat prompts: tokens per message, and to prime the reply. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_PROMPT = 3;

type CountTokens = (text: string) => number;

/** Loaded on the first count: the encoding's tables are large and slow to build, and most replicas never count. */
let tokenizer: Promise<CountTokens> | undefined;
const loadTokenizer = (): Promise<CountTokens> =>
  (tokenizer ??= import('gpt-tokenizer/encoding/o200k_base').then((encoding) => (text: string) => encoding.countTokens(text)));

/**
 * A chat-completions body's input tokens with o200k_base (every current OpenAI model's
 * encoding): each message's text and tool calls, the framing per message, and the tools'
 * definitions as JSON. Images and files are not counted (their tokens are the provider's).
 */
export async function countChatTokens(chat: Record<string, unknown>): Promise<number> {
  const countTokens = await loadTokenizer();
  let total = TOKENS_PER_PROMPT;
  const messages = Array.isArray(chat.messages) ? (chat.messages as Array<Record<string, unknown>>) : [];
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + countTokens(String(message.role ?? '')) + countTokens(textOf(message.content));
    if (Array.isArray(message.tool_calls)) total += countTokens(JSON.stringify(message.tool_calls));
  }
  if (Array.isArray(chat.tools) && chat.tools.length > 0) total += countTokens(JSON.stringify(chat.tools));
  if (chat.response_format !== undefined) total += countTokens(JSON.stringify(chat.response_format));
  return total;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Array<{ type?: unknown; text?: unknown }>)
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}
