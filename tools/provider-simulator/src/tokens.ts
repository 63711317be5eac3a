/**
 * The simulator's tokenizer. It is deliberately simple and fully documented so that
 * tests can compute expected counts by hand:
 *
 *   - a token is either a run of word characters (letters, combining marks, digits, `_`)
 *     or a single other non-whitespace character (punctuation, symbols, emoji);
 *   - whitespace is never a token on its own.
 *
 * So `"Hello, world!"` is 4 tokens: `Hello` `,` `world` `!`.
 *
 * For streaming and logprobs the text is split into "pieces": each piece is one token
 * with the whitespace that precedes it, so joining the pieces gives back the text exactly
 * (trailing whitespace is attached to the last piece).
 */

const TOKEN_RE = /[\p{L}\p{M}\p{N}_]+|[^\s\p{L}\p{M}\p{N}_]/gu;
const PIECE_RE = /\s*(?:[\p{L}\p{M}\p{N}_]+|[^\s\p{L}\p{M}\p{N}_])/gu;

/** Tokens a model message adds on top of its text, and a request adds on top of its messages. */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_REQUEST = 3;
/** Flat cost of an image part or block. */
export const TOKENS_PER_IMAGE = 85;

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return text.match(TOKEN_RE)?.length ?? 0;
}

/** Splits text into pieces (one token each, with leading whitespace); `pieces.join('') === text`. */
export function splitPieces(text: string): string[] {
  const pieces = text.match(PIECE_RE) ?? [];
  const covered = pieces.reduce((n, p) => n + p.length, 0);
  if (covered < text.length) {
    const rest = text.slice(covered);
    if (pieces.length === 0) return [rest];
    pieces[pieces.length - 1] += rest;
  }
  return pieces;
}

/** Groups pieces into strings of `size` pieces each (the last group may be shorter). */
export function groupPieces(pieces: string[], size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i += size) out.push(pieces.slice(i, i + size).join(''));
  return out;
}

/** 32-bit FNV-1a hash of a string's UTF-16 code units. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small deterministic PRNG returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
