import type { ResolvedByokCredential } from '@gw/contracts';
import { credentialsFor, type CredentialRequester } from './byok-selection.js';
import { balancedOrder, type RandomSource } from './endpoint-balance.js';
import type { EndpointHealthView } from './endpoint-health.js';
import { unsupportedParameters } from './parameter-support.js';
import { providerMatches } from './provider-preferences.js';
import { ultrafastRank } from './service-tier.js';
import {
  endpointKeyOf,
  type ModelChoice,
  type ProviderPreferences,
  type RouteAttempt,
  type RouteCandidate,
  type RoutePlan,
} from './route-types.js';

export interface PlanInput {
  /** The requested model first, then the body's `models` fallbacks, already resolved in the catalog. */
  models: readonly ModelChoice[];
  preferences: ProviderPreferences;
  credentials: readonly ResolvedByokCredential[];
  requester: CredentialRequester;
  health: EndpointHealthView;
  /** Endpoint the session last succeeded on for the primary model, if any. */
  stickyEndpointKey?: string;
  /** The gated parameters the request sets (parameter-support.ts). */
  requestedParameters?: readonly string[];
  /** The request's `service_tier`: `ultrafast` puts ultrafast, then priority endpoints first. */
  serviceTier?: string;
  /** Draws the weighted order of endpoints and credentials (default Math.random). */
  random?: RandomSource;
}

/**
 * The ordered list of calls for one request (pure: no I/O, no clock). Per model, in the
 * order of `model` then `models`:
 * - `only` / `ignore` filter the model's endpoints (by provider id or name);
 * - `order` puts the named providers first, in that order; then `sort` (price from the
 *   catalog, throughput / latency from the health tracker) or, without either, the endpoints'
 *   priorities and weights (endpoint-balance.ts: lower priority first, weighted draw within);
 * - `service_tier: "ultrafast"` puts endpoints marked ultrafast first, then those with a
 *   priority tier (spec §4.5), unless `order` was given;
 * - a session's sticky endpoint goes first while it is healthy, unless `order` was given;
 * - `allow_fallbacks: false` keeps only the first endpoint of each model;
 * - each endpoint expands into one attempt per key to try (BYOK priority, then the gateway's
 *   key, then BYOK fallbacks; a workspace endpoint its own keys by weight; see byok-selection.ts);
 * - with `sort` and the partition `none` (the deprecated `route: "sort"`), the endpoints of all
 *   models are sorted together instead of model by model.
 */
export function planRoute(input: PlanInput): RoutePlan {
  const { preferences } = input;
  const candidates: RouteCandidate[] = [];
  let strategy = preferences.order ? 'order' : preferences.sort ? `sort:${preferences.sort}` : 'default';
  const requested = input.requestedParameters ?? [];
  const random = input.random ?? Math.random;
  input.models.forEach((choice, index) => {
    let allowed = allowedCandidates(choice, preferences);
    if (preferences.requireParameters)
      allowed = allowed.filter((candidate) => unsupportedParameters(candidate.endpoint, requested).length === 0);
    let ordered = orderEndpoints(allowed, preferences, input.health, random);
    if (input.serviceTier === 'ultrafast' && !preferences.order)
      ordered = stableSort(ordered, (a, b) => ultrafastRank(a.endpoint) - ultrafastRank(b.endpoint));
    if (index === 0 && !preferences.order && input.stickyEndpointKey && input.health.isHealthy(input.stickyEndpointKey)) {
      const sticky = ordered.find((candidate) => candidate.endpointKey === input.stickyEndpointKey);
      if (sticky) {
        ordered = [sticky, ...ordered.filter((candidate) => candidate !== sticky)];
        strategy = 'sticky';
      }
    }
    candidates.push(...(preferences.allowFallbacks ? ordered : ordered.slice(0, 1)));
  });
  if (input.models.length > 1) strategy += '+models';
  const ordered =
    preferences.sort && preferences.partition === 'none' && input.models.length > 1
      ? stableSort(candidates, comparatorFor(preferences.sort, input.health))
      : candidates;
  if (ordered !== candidates) strategy += ':partition-none';
  const attempts: RouteAttempt[] = ordered.flatMap((candidate) =>
    credentialsFor(candidate, input.credentials, input.requester, random).map((credential) => ({ ...candidate, credential })),
  );
  return { requested: input.models[0]?.id ?? '', strategy, candidates: ordered, attempts, requestedParameters: [...requested] };
}

function allowedCandidates(choice: ModelChoice, preferences: ProviderPreferences): RouteCandidate[] {
  return choice.model.endpoints
    .filter((endpoint) => !preferences.only || providerMatches(preferences.only, endpoint.provider))
    .filter((endpoint) => !preferences.ignore || !providerMatches(preferences.ignore, endpoint.provider))
    .map((endpoint) => ({ modelId: choice.id, model: choice.model, endpoint, endpointKey: endpointKeyOf(endpoint) }));
}

function orderEndpoints(
  candidates: RouteCandidate[],
  preferences: ProviderPreferences,
  health: EndpointHealthView,
  random: RandomSource,
): readonly RouteCandidate[] {
  const order = preferences.order;
  // The client's explicit order or sort replaces the operator's priorities and weights.
  if (!order && !preferences.sort)
    return balancedOrder(
      candidates,
      (candidate) => candidate.endpoint.priority ?? 0,
      (candidate) => candidate.endpoint.weight,
      random,
    );
  const sorted = preferences.sort ? stableSort(candidates, comparatorFor(preferences.sort, health)) : candidates;
  if (!order) return sorted;
  const rank = (candidate: RouteCandidate): number => {
    const position = order.findIndex((name) => providerMatches([name], candidate.endpoint.provider));
    return position === -1 ? order.length : position;
  };
  return stableSort(sorted, (a, b) => rank(a) - rank(b));
}

type Comparator = (a: RouteCandidate, b: RouteCandidate) => number;

function comparatorFor(sort: NonNullable<ProviderPreferences['sort']>, health: EndpointHealthView): Comparator {
  switch (sort) {
    case 'price':
      // Prompt plus completion price per token: what OpenRouter sorts on for chat.
      return (a, b) =>
        a.endpoint.pricing.prompt
          .add(a.endpoint.pricing.completion)
          .comparedTo(b.endpoint.pricing.prompt.add(b.endpoint.pricing.completion));
    case 'latency':
      return byMeasured((candidate) => health.latencyMs(candidate.endpointKey), 'ascending');
    case 'throughput':
      return byMeasured((candidate) => health.throughput(candidate.endpointKey), 'descending');
  }
}

/** Measured endpoints first, best first; unmeasured ones keep their catalog order after them. */
function byMeasured(measure: (candidate: RouteCandidate) => number | undefined, direction: 'ascending' | 'descending'): Comparator {
  return (a, b) => {
    const left = measure(a);
    const right = measure(b);
    if (left === undefined || right === undefined) return (left === undefined ? 1 : 0) - (right === undefined ? 1 : 0);
    return direction === 'ascending' ? left - right : right - left;
  };
}

function stableSort<T>(items: readonly T[], compare: (a: T, b: T) => number): T[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => compare(a.item, b.item) || a.index - b.index)
    .map(({ item }) => item);
}
