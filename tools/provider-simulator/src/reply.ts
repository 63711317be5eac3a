import { countTokens, hash32, prng, splitPieces } from './tokens.ts';

/** Default length of a simulated reply, in tokens. */
export const DEFAULT_REPLY_TOKENS = 24;
const HEAD_WORDS = 8;
const MAX_QUOTE_CHARS = 500;

const FILLER = [
  'the',
  'system',
  'responds',
  'with',
  'a',
  'deterministic',
  'answer',
  'for',
  'testing',
  'purposes',
  'and',
  'every',
  'word',
  'is',
  'chosen',
  'by',
  'seed',
  'from',
  'input',
  'text',
  'so',
  'replies',
  'differ',
  'between',
  'prompts',
  'while',
  'staying',
  'stable',
  'across',
  'runs',
];

/**
 * The reply to a user text: `Simulated reply to: <first 8 words>.` followed by filler words
 * picked by a PRNG seeded from the text (and the choice index), up to `targetTokens` tokens
 * (ending with `.`). Same input, same reply.
 */
export function buildReply(userText: string, variant = 0, targetTokens = DEFAULT_REPLY_TOKENS): string {
  const words = userText.trim().split(/\s+/).filter(Boolean).slice(0, HEAD_WORDS);
  const head = words.join(' ').replace(/[.!?,;:]+$/u, '') || '(empty)';
  const prefix = `Simulated reply to: ${head}.`;
  const rand = prng(hash32(userText) ^ Math.imul(variant + 1, 0x9e3779b9));
  const prefixTokens = countTokens(prefix);
  const filler: string[] = [];
  while (prefixTokens + filler.length + 1 < targetTokens) filler.push(FILLER[Math.floor(rand() * FILLER.length)]!);
  if (filler.length === 0) return prefix;
  const first = filler[0]!;
  filler[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return `${prefix} ${filler.join(' ')}.`;
}

/** The reply after tool results: quotes them. */
export function buildToolResultReply(results: string[]): string {
  const joined = results.join(' | ').trim();
  const quote = joined.length > MAX_QUOTE_CHARS ? `${joined.slice(0, MAX_QUOTE_CHARS)}...` : joined;
  return `Based on the tool result: "${quote}".`;
}

/** Deterministic reasoning / thinking text for a user text. */
export function buildReasoning(userText: string): string {
  const head = userText.trim().split(/\s+/).filter(Boolean).slice(0, HEAD_WORDS).join(' ') || '(empty)';
  return `Thinking about how to answer: ${head}`;
}

export type EndReason = 'end' | 'length' | 'stop_sequence';

export interface ShapedReply {
  text: string;
  pieces: string[];
  tokens: number;
  reason: EndReason;
  stopSequence: string | null;
}

/** Applies stop sequences (cut before the earliest match), then the token limit. */
export function shapeReply(full: string, maxTokens: number | undefined, stops: readonly string[]): ShapedReply {
  let text = full;
  let stopSequence: string | null = null;
  let at = -1;
  for (const stop of stops) {
    if (!stop) continue;
    const i = full.indexOf(stop);
    if (i >= 0 && (at < 0 || i < at)) {
      at = i;
      stopSequence = stop;
    }
  }
  if (at >= 0) text = full.slice(0, at);
  let pieces = splitPieces(text);
  if (maxTokens !== undefined && pieces.length > maxTokens) {
    pieces = pieces.slice(0, Math.max(0, maxTokens));
    return { text: pieces.join(''), pieces, tokens: pieces.length, reason: 'length', stopSequence: null };
  }
  return { text, pieces, tokens: pieces.length, reason: stopSequence === null ? 'end' : 'stop_sequence', stopSequence };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A value that satisfies a JSON schema in the simple cases: strings get `text`, numbers
 * and integers 1, booleans true, null null, arrays one item, objects every property
 * (enum / const pick their first value, anyOf / oneOf the first branch).
 */
export function valueFromSchema(schema: unknown, text: string, depth = 0): unknown {
  if (!isRecord(schema) || depth > 8) return text;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const branches = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? 'null';
  if (type === undefined) {
    if (isRecord(schema.properties)) type = 'object';
    else if (Array.isArray(branches) && branches.length > 0) return valueFromSchema(branches[0], text, depth + 1);
    else type = 'string';
  }
  switch (type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return schema.items === undefined ? [] : [valueFromSchema(schema.items, text, depth + 1)];
    case 'object': {
      const out: Record<string, unknown> = {};
      if (isRecord(schema.properties)) {
        for (const [key, sub] of Object.entries(schema.properties)) out[key] = valueFromSchema(sub, text, depth + 1);
      }
      return out;
    }
    default:
      return text;
  }
}

/** A tool call's input object from its parameters schema (always an object). */
export function toolInput(schema: unknown, text: string): Record<string, unknown> {
  const value = valueFromSchema(schema ?? { type: 'object' }, text);
  return isRecord(value) ? value : { value };
}

/** Deterministic id suffix from some material: `len` base-62 characters. */
export function stableId(material: string, len = 24): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const rand = prng(hash32(material));
  let out = '';
  for (let i = 0; i < len; i++) out += alphabet[Math.floor(rand() * alphabet.length)];
  return out;
}
