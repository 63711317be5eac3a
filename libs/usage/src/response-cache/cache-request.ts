import type { ResponseCacheControls } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { serverToolName } from './server-tool-names.js';

/** Plugins whose run has no effect outside the answer and whose answer is a function of the request. */
const PURE_PLUGINS = new Set(['context-compression', 'response-healing', 'strip-citation-markers']);

export interface CacheSettings {
  defaultTtlSeconds: number;
  maxTtlSeconds: number;
}

/** What the cache does for one request. */
export interface CacheDecision {
  /** Answer from a stored entry when there is one. */
  read: boolean;
  /** Store the answer. */
  write: boolean;
  ttlSeconds: number;
  coalesce: boolean;
  /** The response header's value on a miss: MISS, or REFRESH for no-cache. */
  missStatus: 'MISS' | 'REFRESH';
}

/**
 * The request's cache controls: the caller's headers (gateway), over the body's own `cache`
 * field after its preset was applied (the request's field wins over its preset's in the merge),
 * over the key's default (a key with a TTL caches its requests unless they opt out).
 */
export function controlsOf(
  request: ResponseCacheControls | undefined,
  body: Record<string, unknown>,
  keyTtlSeconds?: number | null,
): ResponseCacheControls | undefined {
  const fromKey: ResponseCacheControls | undefined = keyTtlSeconds ? { enabled: true, ttlSeconds: keyTtlSeconds } : undefined;
  const fromBody = bodyControls(body.cache);
  if (!request && !fromBody) return fromKey;
  return { ...fromKey, ...withoutUndefined(fromBody ?? {}), ...withoutUndefined(request ?? {}) };
}

/**
 * Undefined when the request is not cached: not opted in, the operator's bound is 0, bypassed
 * (no-store), private, or an answer that cannot be reused (n > 1 sampled, server tools,
 * plugins with side effects, debug output).
 */
export function decide(
  controls: ResponseCacheControls | undefined,
  body: Record<string, unknown>,
  settings: CacheSettings,
): CacheDecision | undefined {
  if (!controls?.enabled || settings.maxTtlSeconds === 0) return undefined;
  if (controls.directive === 'bypass' || controls.private === true || !reusable(body, controls)) return undefined;
  const ttlSeconds = Math.min(controls.ttlSeconds ?? settings.defaultTtlSeconds, settings.maxTtlSeconds);
  const refresh = controls.directive === 'refresh';
  return {
    read: !refresh,
    write: true,
    ttlSeconds,
    coalesce: !refresh && controls.coalesce !== false,
    missStatus: refresh ? 'REFRESH' : 'MISS',
  };
}

/** An answer another identical request may receive. */
function reusable(body: Record<string, unknown>, controls: ResponseCacheControls): boolean {
  if (body.debug !== undefined && body.debug !== null) return false;
  if (markedPrivate(body)) return false;
  const n = typeof body.n === 'number' ? body.n : 1;
  // A provider's default temperature is above 0: several choices are several samples.
  const temperature = typeof body.temperature === 'number' ? body.temperature : 1;
  if (n > 1 && temperature > 0 && !controls.allowSampledChoices) return false;
  if (Array.isArray(body.tools) && body.tools.some((tool) => serverToolName((tool as { type?: unknown } | null)?.type) !== undefined))
    return false;
  if (body.web_search_options !== undefined && body.web_search_options !== null) return false;
  if (Array.isArray(body.plugins) && body.plugins.some((plugin) => !PURE_PLUGINS.has(String((plugin as { id?: unknown } | null)?.id))))
    return false;
  return true;
}

/** Data the caller asked not to be kept: Responses `store: false`, zero data retention, no data collection. */
function markedPrivate(body: Record<string, unknown>): boolean {
  if (body.store === false) return true;
  const provider = body.provider as { zdr?: unknown; data_collection?: unknown } | undefined;
  return provider?.zdr === true || provider?.data_collection === 'deny';
}

/** The body's `cache`: `true` / `false`, or LiteLLM's object (`ttl`, `no-cache`, `no-store`) with this gateway's additions. */
export function bodyControls(value: unknown): ResponseCacheControls | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return { enabled: value };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('cache must be a boolean or an object');
  const field = value as Record<string, unknown>;
  const known = new Set(['enabled', 'ttl', 'no-cache', 'no-store', 'private', 'coalesce', 'allow_sampled_choices']);
  const unknown = Object.keys(field).filter((key) => !known.has(key));
  if (unknown.length > 0) throw invalid(`cache does not take ${unknown.join(', ')}`);
  const controls: ResponseCacheControls = { enabled: flag(field, 'enabled') ?? true };
  if (field.ttl !== undefined) {
    if (!Number.isInteger(field.ttl) || (field.ttl as number) < 1) throw invalid('cache.ttl must be a whole number of seconds, at least 1');
    controls.ttlSeconds = field.ttl as number;
  }
  if (flag(field, 'no-store')) controls.directive = 'bypass';
  else if (flag(field, 'no-cache')) controls.directive = 'refresh';
  const isPrivate = flag(field, 'private');
  if (isPrivate !== undefined) controls.private = isPrivate;
  const coalesce = flag(field, 'coalesce');
  if (coalesce !== undefined) controls.coalesce = coalesce;
  const sampled = flag(field, 'allow_sampled_choices');
  if (sampled !== undefined) controls.allowSampledChoices = sampled;
  return controls;
}

function flag(field: Record<string, unknown>, name: string): boolean | undefined {
  const value = field[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw invalid(`cache.${name} must be a boolean`);
  return value;
}

function invalid(message: string): GatewayError {
  return GatewayError.badRequest(message, { param: 'cache' });
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as Partial<T>;
}
