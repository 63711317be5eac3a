import { GatewayError } from '@gw/errors';
import type { ProviderPreferences, ProviderSort } from './route-types.js';

const SORTS: readonly ProviderSort[] = ['price', 'throughput', 'latency'];

export const DEFAULT_PREFERENCES: ProviderPreferences = {
  order: null,
  allowFallbacks: true,
  only: null,
  ignore: null,
  sort: null,
  partition: 'model',
  requireParameters: false,
};
const PARTITIONS = ['model', 'none'] as const;

/**
 * Reads the body's `provider` object and the deprecated top-level `route` (spec §4.5, §9:
 * `fallback` is the sort partition `model`, `sort` is `none`; `provider.sort.partition` wins
 * when both are given). Only the routing keys are read here; unknown keys are ignored
 * (OpenRouter has more, such as data_collection, that mean nothing to this gateway). A wrongly
 * typed key is a 400: silently routing differently from what was asked is worse.
 */
export function parseProviderPreferences(value: unknown, route?: unknown): ProviderPreferences {
  const routePartition = partitionOfRoute(route);
  if (value === undefined || value === null)
    return routePartition ? { ...DEFAULT_PREFERENCES, partition: routePartition } : DEFAULT_PREFERENCES;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('provider must be an object');
  const raw = value as Record<string, unknown>;
  return {
    order: stringList(raw.order, 'order'),
    allowFallbacks: raw.allow_fallbacks === undefined || raw.allow_fallbacks === null ? true : bool(raw.allow_fallbacks, 'allow_fallbacks'),
    only: stringList(raw.only, 'only'),
    ignore: stringList(raw.ignore, 'ignore'),
    sort: sortOf(raw.sort),
    partition: partitionOf(raw.sort) ?? routePartition ?? 'model',
    requireParameters:
      raw.require_parameters === undefined || raw.require_parameters === null ? false : bool(raw.require_parameters, 'require_parameters'),
  };
}

/** A provider named in a preference matches the catalog provider's id or display name, case-insensitively. */
export function providerMatches(names: readonly string[], provider: { id: string; name: string }): boolean {
  const id = provider.id.toLowerCase();
  const name = provider.name.toLowerCase();
  return names.some((entry) => {
    const wanted = entry.toLowerCase();
    return wanted === id || wanted === name;
  });
}

function sortOf(value: unknown): ProviderSort | null {
  if (value === undefined || value === null) return null;
  // OpenRouter also accepts { by: 'price', partition: ... }.
  const by = typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>).by : value;
  if (typeof by === 'string' && (SORTS as readonly string[]).includes(by)) return by as ProviderSort;
  throw invalid(`provider.sort must be one of ${SORTS.join(', ')}`);
}

function partitionOfRoute(route: unknown): ProviderPreferences['partition'] | undefined {
  if (route === undefined || route === null) return undefined;
  if (route === 'fallback') return 'model';
  if (route === 'sort') return 'none';
  throw invalid('route must be "fallback" or "sort" (deprecated: use provider.sort.partition)');
}

function partitionOf(sort: unknown): ProviderPreferences['partition'] | undefined {
  if (sort === null || typeof sort !== 'object' || Array.isArray(sort)) return undefined;
  const partition = (sort as Record<string, unknown>).partition;
  if (partition === undefined || partition === null) return undefined;
  if (typeof partition === 'string' && (PARTITIONS as readonly string[]).includes(partition))
    return partition as ProviderPreferences['partition'];
  throw invalid(`provider.sort.partition must be one of ${PARTITIONS.join(', ')}`);
}

function stringList(value: unknown, key: string): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string'))
    throw invalid(`provider.${key} must be an array of strings`);
  return value as string[];
}

function bool(value: unknown, key: string): boolean {
  if (typeof value !== 'boolean') throw invalid(`provider.${key} must be a boolean`);
  return value;
}

function invalid(message: string): GatewayError {
  return new GatewayError(400, message, { errorType: 'invalid_request' });
}

/**
 * The fields of every request body that steer routing here (endpoint choice, fallbacks,
 * stickiness) and mean nothing to a provider: never forwarded upstream, on any endpoint.
 */
export const ROUTING_FIELDS: readonly string[] = ['provider', 'models', 'route', 'session_id'];
