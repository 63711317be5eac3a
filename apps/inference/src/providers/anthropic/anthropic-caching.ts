import { GatewayError } from '@gw/errors';
import type { AnthropicBlock, AnthropicMessage } from './anthropic-messages.js';

/** Anthropic caches at most four breakpoints per request and answers 400 above that. */
const MAX_CACHE_BREAKPOINTS = 4;
const TTLS = ['5m', '1h'];

/** Blocks a cache breakpoint may sit on (Anthropic refuses one on thinking blocks). */
const CACHEABLE = new Set(['text', 'image', 'document', 'tool_use', 'tool_result']);

interface CachingTarget {
  system?: AnthropicBlock[];
  messages: AnthropicMessage[];
  tools?: Array<Record<string, unknown>>;
}

/**
 * The gateway's prompt-caching controls (spec §4.5/§4.6) as Anthropic `cache_control` blocks:
 * - a block's own `cache_control` or `prompt_cache_breakpoint` marks that block (already carried
 *   by the conversation translation);
 * - the top-level `cache_control: {type: "ephemeral", ttl?}` marks the last cacheable block;
 * - `prompt_cache_options.mode: "explicit"` leaves only the blocks the request marked, so the
 *   top-level automatic marker is not applied; `prompt_cache_options.ttl` is the TTL of every
 *   marker that names none.
 * More breakpoints than Anthropic takes is a 400 here, naming the limit.
 */
export function applyPromptCaching(body: Record<string, unknown>, target: CachingTarget): void {
  const options = objectOrUndefined(body.prompt_cache_options, 'prompt_cache_options');
  const explicit = options?.mode === 'explicit';
  if (options?.mode !== undefined && options.mode !== null && options.mode !== 'explicit') {
    throw GatewayError.badRequest('prompt_cache_options.mode must be "explicit"');
  }
  const defaultTtl = ttlOf(options?.ttl, 'prompt_cache_options.ttl');
  const automatic =
    body.cache_control === undefined || body.cache_control === null ? undefined : cacheControlOf(body.cache_control, 'cache_control');
  if (automatic && !explicit) {
    const last = lastCacheableBlock(target);
    if (last && last.cache_control === undefined) last.cache_control = automatic;
  }
  const marked = [...(target.tools ?? []), ...(target.system ?? []), ...target.messages.flatMap((message) => message.content)].filter(
    (block) => block.cache_control !== undefined,
  );
  if (marked.length > MAX_CACHE_BREAKPOINTS) {
    throw GatewayError.badRequest(
      `At most ${MAX_CACHE_BREAKPOINTS} prompt cache breakpoints are allowed for this model's provider (Anthropic); the request marks ${marked.length}`,
    );
  }
  for (const block of marked) {
    const control = cacheControlOf(block.cache_control, 'cache_control');
    block.cache_control = defaultTtl && control.ttl === undefined ? { ...control, ttl: defaultTtl } : control;
  }
}

/**
 * A block-level marker as Anthropic's `cache_control`: an explicit `cache_control` object, or
 * `prompt_cache_breakpoint` (`true`, or an object that may carry a `ttl`).
 */
export function blockCacheControl(part: Record<string, unknown>): Record<string, unknown> | undefined {
  if (part.cache_control !== undefined && part.cache_control !== null) return cacheControlOf(part.cache_control, 'cache_control');
  const breakpoint = part.prompt_cache_breakpoint;
  if (breakpoint === undefined || breakpoint === null || breakpoint === false) return undefined;
  if (breakpoint === true) return { type: 'ephemeral' };
  const ttl = ttlOf(objectOrUndefined(breakpoint, 'prompt_cache_breakpoint')?.ttl, 'prompt_cache_breakpoint.ttl');
  return ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' };
}

function lastCacheableBlock(target: CachingTarget): AnthropicBlock | undefined {
  for (let m = target.messages.length - 1; m >= 0; m--) {
    const content = target.messages[m]!.content;
    for (let b = content.length - 1; b >= 0; b--) if (CACHEABLE.has(content[b]!.type)) return content[b];
  }
  const system = target.system ?? [];
  return system[system.length - 1];
}

function cacheControlOf(value: unknown, field: string): Record<string, unknown> {
  const control = objectOrUndefined(value, field);
  if (!control || control.type !== 'ephemeral')
    throw GatewayError.badRequest(`${field} must be {"type": "ephemeral", "ttl"?: "5m" | "1h"}`);
  const ttl = ttlOf(control.ttl, `${field}.ttl`);
  return ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' };
}

function ttlOf(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !TTLS.includes(value)) throw GatewayError.badRequest(`${field} must be one of ${TTLS.join(', ')}`);
  return value;
}

function objectOrUndefined(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw GatewayError.badRequest(`${field} must be an object`);
  return value as Record<string, unknown>;
}
