import { createHash } from 'node:crypto';
import { isRecord, type Json } from './json.ts';

/** Anthropic's limits: at most 4 breakpoints; a prefix under 1,024 tokens is not cached. */
export const MAX_BREAKPOINTS = 4;
export const MIN_CACHEABLE_TOKENS = 1024;
const MAX_ENTRIES = 10_000;

/** Prefix hashes seen, in insertion order (a bounded LRU-ish memory of what was "written"). */
const cache = new Set<string>();

export function resetPromptCache(): void {
  cache.clear();
}

function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** Every block that may carry cache_control, in Anthropic's cache order: tools, system, messages. */
function orderedBlocks(body: Json): Json[] {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  return [...tools, ...blocksOf(body.system), ...messages.flatMap((m) => blocksOf(m.content))];
}

/**
 * The blocks with their markers: a top-level `cache_control` (automatic caching) marks the
 * last block, unless it is marked already, and takes a breakpoint slot like any marker.
 */
function markedBlocks(body: Json): Json[] {
  const blocks = orderedBlocks(body);
  const last = blocks.at(-1);
  if (body.cache_control === undefined || body.cache_control === null || !last || last.cache_control !== undefined) return blocks;
  return [...blocks.slice(0, -1), { ...last, cache_control: body.cache_control }];
}

/** Anthropic's 400 for a malformed or excess cache_control, undefined when the markers are fine. */
export function validateCacheControl(body: Json): string | undefined {
  const marked = markedBlocks(body).filter((block) => block.cache_control !== undefined);
  if (marked.length > MAX_BREAKPOINTS)
    return `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marked.length}.`;
  for (const block of marked) {
    const control = block.cache_control;
    if (!isRecord(control) || control.type !== 'ephemeral') return "cache_control.type: Input should be 'ephemeral'";
    const extra = Object.keys(control).find((key) => key !== 'type' && key !== 'ttl');
    if (extra !== undefined) return `cache_control.${extra}: Extra inputs are not permitted`;
    if (control.ttl !== undefined && control.ttl !== '5m' && control.ttl !== '1h') return "cache_control.ttl: Input should be '5m' or '1h'";
  }
  return undefined;
}

/**
 * Prompt caching as Anthropic does it, in miniature: the prefix up to the last block marked
 * with cache_control is written on first sight (cache_creation_input_tokens) and read after
 * (cache_read_input_tokens), if it holds at least 1,024 tokens. `tokensOf` counts one block.
 */
export function promptCacheUsage(body: Json, tokensOf: (block: Json) => number): { read: number; write: number } {
  const blocks = markedBlocks(body);
  let last = -1;
  blocks.forEach((block, index) => {
    if (block.cache_control !== undefined) last = index;
  });
  if (last < 0) return { read: 0, write: 0 };
  const prefix = blocks.slice(0, last + 1);
  const tokens = prefix.reduce((sum, block) => sum + tokensOf(block), 0);
  if (tokens < MIN_CACHEABLE_TOKENS) return { read: 0, write: 0 };
  const key = createHash('sha256')
    .update(`${String(body.model)}\n${JSON.stringify(prefix.map(({ cache_control: _ignored, ...rest }) => rest))}`)
    .digest('hex');
  if (cache.has(key)) return { read: tokens, write: 0 };
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.values().next().value!);
  cache.add(key);
  return { read: 0, write: tokens };
}
