import type { NormalizedCompletion } from '../providers/provider-adapter.js';
import { redactDeep } from './content-redaction.js';
import type { KeptText } from './kept-text.js';

/** What `GET /v1/generation/content` answers (`@openrouter/sdk` `GenerationContentData`). */
export interface GenerationContentDraft {
  input: { messages: unknown[] } | { prompt: string };
  output: { completion: string | null; reasoning: string | null };
}

const TRUNCATED = '…[truncated]';

/** A chat answer's content: the messages as sent upstream, the first choice's text and reasoning. */
export function chatContent(messages: unknown, completion: Pick<NormalizedCompletion, 'choices'>): GenerationContentDraft {
  const message = completion.choices[0]?.message as { content?: unknown; reasoning?: unknown } | undefined;
  return {
    input: { messages: Array.isArray(messages) ? messages : [] },
    output: { completion: textOf(message?.content), reasoning: textOf(message?.reasoning) },
  };
}

/** A streamed answer's content: the messages as sent upstream and what was kept of the text as it streamed. */
export function streamedContent(messages: unknown, kept: KeptText): () => GenerationContentDraft {
  return () => ({ input: { messages: Array.isArray(messages) ? messages : [] }, output: kept.output() });
}

/**
 * An embeddings request's content: its input as the prompt (one text as it is, several texts or
 * token arrays as their JSON), no completion (the vectors are not kept: they are the provider's
 * function of the input, and large).
 */
export function embeddingsContent(input: unknown): GenerationContentDraft {
  return {
    input: { prompt: typeof input === 'string' ? input : JSON.stringify(input) },
    output: { completion: null, reasoning: null },
  };
}

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const texts = value.map((part) => (part as { text?: unknown })?.text).filter((text): text is string => typeof text === 'string');
    return texts.length > 0 ? texts.join('') : null;
  }
  return null;
}

/**
 * The content as stored: secrets of known shapes redacted, then every string cut to the longest
 * length that brings the whole under `maxBytes` (the JSON's UTF-8 size), marked where cut.
 */
export function prepareContent(draft: GenerationContentDraft, maxBytes: number): { json: string; truncated: boolean; redactions: number } {
  const count = { redactions: 0 };
  const redacted = redactDeep(draft, count);
  let json = JSON.stringify(redacted);
  if (Buffer.byteLength(json) <= maxBytes) return { json, truncated: false, redactions: count.redactions };
  let longest = Math.max(64, Math.floor(maxBytes / 2));
  for (;;) {
    json = JSON.stringify(cutStrings(redacted, longest));
    if (Buffer.byteLength(json) <= maxBytes || longest <= 16) break;
    longest = Math.floor(longest / 2);
  }
  // Still over (a huge number of short strings): keep the output, drop the input messages.
  if (Buffer.byteLength(json) > maxBytes) {
    json = JSON.stringify(cutStrings({ input: { messages: [] }, output: redacted.output }, longest));
  }
  return { json, truncated: true, redactions: count.redactions };
}

function cutStrings<T>(value: T, longest: number): T {
  if (typeof value === 'string') return (value.length > longest ? value.slice(0, longest) + TRUNCATED : value) as T;
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, longest)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutStrings(item, longest)])) as T;
  }
  return value;
}
