import { GatewayError } from '@gw/errors';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import type { ProviderFormat } from '../catalog/catalog.schema.js';

/** The tiers a request may ask for (spec §4.5): `fast` is an alias of `priority`. */
const REQUEST_SERVICE_TIERS = ['auto', 'default', 'fast', 'flex', 'priority', 'scale', 'ultrafast'] as const;

/**
 * The tiers an endpoint takes when its catalog entry does not list its own: what OpenAI's chat
 * completions accept, and what Anthropic offers (its `auto` uses priority capacity when the
 * account has it, `standard_only` never does). `ultrafast` only where the catalog says so.
 */
const DEFAULT_TIERS: Record<ProviderFormat, readonly string[]> = {
  openai: ['auto', 'default', 'flex', 'priority', 'scale'],
  anthropic: ['auto', 'default', 'priority'],
  // Converse's serviceTier is not sent yet: an endpoint offers the default only.
  bedrock: ['auto', 'default'],
  azure: ['auto', 'default', 'flex', 'priority', 'scale'],
  // Gemini and Vertex AI take no tier in the request body.
  gemini: [],
  vertex: [],
};

/** The tiers an endpoint takes, in the spec's vocabulary. */
function tiersOf(endpoint: RoutableEndpoint): readonly string[] {
  return endpoint.serviceTiers ?? DEFAULT_TIERS[endpoint.provider.format];
}

/** The request's `service_tier`, checked; undefined when not set. */
export function requestedTier(body: Record<string, unknown>): string | undefined {
  const tier = body.service_tier;
  if (tier === undefined || tier === null) return undefined;
  if (typeof tier !== 'string' || !(REQUEST_SERVICE_TIERS as readonly string[]).includes(tier)) {
    throw new GatewayError(400, `service_tier must be one of ${REQUEST_SERVICE_TIERS.join(', ')}`, { errorType: 'invalid_request' });
  }
  return tier;
}

/** What a requested tier falls back to, best first (spec §4.5: ultrafast, then priority, then default). */
function preferenceOf(tier: string): readonly string[] {
  if (tier === 'fast') return ['priority'];
  if (tier === 'ultrafast') return ['ultrafast', 'priority', 'default'];
  return [tier];
}

/**
 * The tier this endpoint is sent for the requested one, in the spec's vocabulary: the first of
 * the preference list the endpoint takes; undefined when it takes none (the field is then left
 * out and named in routing metadata like any unsupported parameter).
 */
export function tierFor(endpoint: RoutableEndpoint, requested: string): string | undefined {
  const offered = tiersOf(endpoint);
  return preferenceOf(requested).find((tier) => offered.includes(tier));
}

/** The tier as the provider spells it: Anthropic's `service_tier` is `auto` or `standard_only`. */
export function wireTier(format: ProviderFormat, tier: string): string {
  if (format === 'anthropic') return tier === 'default' ? 'standard_only' : 'auto';
  return tier;
}

/** Ultrafast requests try endpoints marked ultrafast first, then those with priority, then the rest. */
export function ultrafastRank(endpoint: RoutableEndpoint): number {
  const offered = tiersOf(endpoint);
  if (offered.includes('ultrafast')) return 0;
  return offered.includes('priority') ? 1 : 2;
}

/** The tier a provider reports having used, in the spec's vocabulary (Anthropic says `standard`). */
export function reportedTier(tier: string | null | undefined): string | null {
  if (tier === undefined || tier === null) return null;
  return tier === 'standard' ? 'default' : tier;
}
