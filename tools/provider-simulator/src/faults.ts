import type { IncomingHttpHeaders } from 'node:http';

/**
 * Fault directives. They come from the model name (`sim-gpt;status=500;latency=20`) and from
 * request headers (`x-sim-status: 500`); a header wins over the same key in the model name.
 */
export interface Directives {
  /** ms before the response head is sent */
  latency: number;
  /** ms between stream frames */
  chunkDelay: number;
  /** HTTP status to answer with (an error body in the provider's format) */
  status?: number;
  /** only the first N requests with the same fault key fail */
  failTimes?: number;
  faultKey?: string;
  /** streaming: destroy the socket after N content chunks; non-streaming: after the head */
  cut?: number;
  /** streaming: send a provider error event after N content chunks, then end the stream */
  streamError?: number;
  /** context window in tokens */
  context: number;
  /** reasoning tokens to report (Anthropic: enables thinking) */
  reasoning?: number;
  /** cached prompt tokens to report */
  cached?: number;
  /** length of the generated reply in tokens (before max_tokens / stop) */
  replyTokens?: number;
  /** JSON answers in a Markdown fence with a trailing comma (the gateway's response-healing repairs them) */
  sloppyJson?: boolean;
  /** usage details to report: audio prompt tokens, audio completion tokens, cache writes, web searches */
  audioIn?: number;
  audioOut?: number;
  cacheWrite?: number;
  webSearch?: number;
  /** seconds sent in `retry-after` with a 429 or 503 fault (default: 1 on a 429, none on a 503) */
  retryAfter?: number;
  /** streaming: a 200 stream that ends at once, without a single chunk (OpenAI: only `data: [DONE]`) */
  emptyStream?: boolean;
  /** Gemini: a tool call turn calls every offered function at once */
  parallelTools?: boolean;
  /** Gemini: the safety filters block the prompt (1) or stop the answer (2); Bedrock: its guardrail intervenes */
  safetyBlock?: number;
  /** OpenAI: a 429 is the spent-quota error (`insufficient_quota`), not a rate limit */
  quota?: boolean;
}

export const DEFAULT_CONTEXT = 128_000;
export const FAULT_STATUSES = [400, 401, 403, 404, 413, 429, 500, 502, 503, 529] as const;
const MAX_FAULT_KEYS = 10_000;

export interface ParsedModel {
  base: string;
  directives: Directives;
}

function toInt(value: string): number | undefined {
  const n = Number(value.trim());
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : undefined;
}

function apply(d: Directives, key: string, raw: string): void {
  const value = raw.trim();
  if (key === 'fault-key') {
    if (value) d.faultKey = value;
    return;
  }
  const n = toInt(value);
  if (n === undefined) return;
  switch (key) {
    case 'latency':
      d.latency = n;
      break;
    case 'chunk-delay':
      d.chunkDelay = n;
      break;
    case 'status':
      if (n >= 400 && n <= 599) d.status = n;
      break;
    case 'fail-times':
      d.failTimes = n;
      break;
    case 'cut':
      d.cut = n;
      break;
    case 'stream-error':
      d.streamError = n;
      break;
    case 'context':
      if (n > 0) d.context = n;
      break;
    case 'reasoning':
      d.reasoning = n;
      break;
    case 'cached':
      d.cached = n;
      break;
    case 'audio-in':
      d.audioIn = n;
      break;
    case 'audio-out':
      d.audioOut = n;
      break;
    case 'cache-write':
      d.cacheWrite = n;
      break;
    case 'web-search':
      d.webSearch = n;
      break;
    case 'retry-after':
      d.retryAfter = n;
      break;
    case 'empty-stream':
      d.emptyStream = n > 0;
      break;
    case 'parallel-tools':
      d.parallelTools = n > 0;
      break;
    case 'safety-block':
      d.safetyBlock = n;
      break;
    case 'quota':
      d.quota = n > 0;
      break;
    case 'sloppy-json':
      d.sloppyJson = n > 0;
      break;
    case 'reply-tokens':
      if (n > 0) d.replyTokens = Math.min(n, 100_000);
      break;
    default:
      break;
  }
}

/** Splits `base;key=value;...` and reads `x-sim-<key>` headers. */
export function parseDirectives(model: unknown, headers: IncomingHttpHeaders): ParsedModel {
  const d: Directives = { latency: 0, chunkDelay: 0, context: DEFAULT_CONTEXT };
  let base = typeof model === 'string' ? model : '';
  const semi = base.indexOf(';');
  if (semi >= 0) {
    for (const part of base.slice(semi + 1).split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0) apply(d, part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1));
    }
    base = base.slice(0, semi).trim();
  }
  for (const name in headers) {
    if (!name.startsWith('x-sim-')) continue;
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (value !== undefined) apply(d, name.slice(6), value);
  }
  return { base, directives: d };
}

const failCounts = new Map<string, number>();

/**
 * The status to fail this request with, if any. `status` alone fails every request;
 * with `fail-times` N only the first N requests per fault key fail (status default 500).
 * The fault key defaults to the raw model string.
 */
export function faultStatus(d: Directives, rawModel: unknown): number | undefined {
  if (d.failTimes === undefined) return d.status;
  const key = d.faultKey ?? (typeof rawModel === 'string' ? rawModel : '');
  const seen = (failCounts.get(key) ?? 0) + 1;
  failCounts.delete(key);
  failCounts.set(key, seen);
  if (failCounts.size > MAX_FAULT_KEYS) {
    const oldest = failCounts.keys().next().value;
    if (oldest !== undefined) failCounts.delete(oldest);
  }
  return seen <= d.failTimes ? (d.status ?? 500) : undefined;
}

export function resetFaultCounters(): void {
  failCounts.clear();
}

export function faultCounterSize(): number {
  return failCounts.size;
}
