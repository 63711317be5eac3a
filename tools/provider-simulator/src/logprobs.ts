import { hash32 } from './tokens.ts';

export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface LogprobEntry extends TopLogprob {
  top_logprobs: TopLogprob[];
}

const ALTERNATIVES = [
  ' the',
  ' a',
  ' and',
  ',',
  '.',
  ' of',
  ' to',
  ' is',
  ' in',
  ' it',
  ' that',
  ' for',
  ' on',
  ' with',
  ' as',
  ' was',
  ' at',
  ' by',
  ' this',
  ' or',
];

function bytesOf(token: string): number[] {
  return Array.from(Buffer.from(token, 'utf8'));
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/**
 * Deterministic logprobs for one completion token: the chosen token's logprob is in
 * (-2, 0]; `top_logprobs` lists `k` entries, the chosen token first, then alternatives
 * with strictly lower logprobs.
 */
export function logprobEntry(token: string, position: number, k: number): LogprobEntry {
  const logprob = round(-((hash32(`${position}:${token}`) % 2000) / 1000));
  const top: TopLogprob[] = [];
  if (k > 0) top.push({ token, logprob, bytes: bytesOf(token) });
  let j = 0;
  for (const alt of ALTERNATIVES) {
    if (top.length >= k) break;
    if (alt === token) continue;
    j++;
    top.push({ token: alt, logprob: round(logprob - j * 0.75), bytes: bytesOf(alt) });
  }
  return { token, logprob, bytes: bytesOf(token), top_logprobs: top };
}

export function logprobEntries(pieces: readonly string[], offset: number, k: number): LogprobEntry[] {
  return pieces.map((piece, i) => logprobEntry(piece, offset + i, k));
}
