import { Prisma } from '../generated/prisma/client.js';
import { minutesOf, type PriceWindowPricing } from '../pricing/price-windows.js';
import {
  hasGatewayCredential,
  WEEKDAYS,
  type CatalogConfig,
  type ModelConfig,
  type PricingConfig,
  type ProviderConfig,
} from './catalog.schema.js';

export interface EndpointPricing {
  prompt: Prisma.Decimal;
  completion: Prisma.Decimal;
  cachedPrompt: Prisma.Decimal;
  /** Unset: cache writes cost the prompt price. */
  cacheWritePrompt?: Prisma.Decimal;
  /** Unset: audio / image tokens cost what text costs. */
  audioPrompt?: Prisma.Decimal;
  audioCompletion?: Prisma.Decimal;
  imageCompletion?: Prisma.Decimal;
  /** Prices by prompt length, ascending: the last one whose threshold the prompt exceeds applies to the whole request. */
  tiers?: PriceTierPricing[];
  /** A fee per request on top of tokens (Perplexity's search fee). */
  request?: Prisma.Decimal;
  /** Prices by time of day (UTC): the window holding a call's start replaces the prices above (pricing/price-windows.ts). */
  windows?: PriceWindowPricing[];
}

export interface PriceTierPricing {
  promptTokensAbove: number;
  prompt: Prisma.Decimal;
  completion: Prisma.Decimal;
  cachedPrompt: Prisma.Decimal;
  cacheWritePrompt?: Prisma.Decimal;
}

/** Prices the catalog may give an endpoint beyond what billing reads today: shown in /v1/models. */
export interface ExtraPrices {
  reasoning?: string;
  request?: string;
  webSearch?: string;
}

export interface RoutableEndpoint {
  provider: ProviderConfig;
  upstreamModel: string;
  pricing: EndpointPricing;
  /** The catalog version these prices belong to, recorded on the generation charged at them (unset outside the catalog). */
  priceVersion?: number;
  /** The request parameters this endpoint takes (its own list, else its model's; routing/parameter-support.ts). */
  supportedParameters: ReadonlySet<string>;
  /** The service tiers it takes, when the catalog lists them (routing/service-tier.ts). */
  serviceTiers?: readonly string[];
  /** Set when the endpoint runs batches at its provider's batch API, at this (lower) price. */
  batchPricing?: EndpointPricing;
  extraPrices?: ExtraPrices;
  /** Lower first (default 0); equal priorities are drawn by `weight` (routing/endpoint-balance.ts). */
  priority?: number;
  weight?: number;
  /** Names the endpoint for health and cooldowns where provider and upstream model are not unique (a workspace's). */
  key?: string;
  /** A workspace named its URL: called through the pool that refuses private addresses. */
  tenant?: boolean;
  /** The gateway's own keys for this endpoint (the catalog's `credentials`, unset ones left out) instead of its provider's. */
  gatewayKeys?: ReadonlyArray<{ index: number; apiKey: string; weight?: number }>;
  /** A fixture that fails on purpose (the catalog's `failsOnPurpose`): its failures cool it for nobody. */
  failsOnPurpose?: boolean;
  /** A workspace endpoint's own BYOK credentials, the only keys it is called with, drawn by weight. */
  boundCredentials?: ReadonlyArray<{ credentialId: string; weight?: number }>;
}

export interface RoutableModel {
  config: ModelConfig;
  endpoints: RoutableEndpoint[];
}

/**
 * One version of the catalog, built once and never changed: a request that resolved a model
 * keeps that version's endpoints and prices to its end, whatever version replaces it meanwhile.
 */
export interface CatalogSnapshot {
  version: number;
  /** Seconds since the epoch when this version was installed (each model's `created`). */
  loadedAt: number;
  models: ReadonlyMap<string, RoutableModel>;
  /** Alias -> the model it names. */
  aliases: ReadonlyMap<string, RoutableModel>;
}

export function buildSnapshot(catalog: CatalogConfig, version: number): CatalogSnapshot {
  const providers = new Map(catalog.providers.map((provider) => [provider.id, provider]));
  const models = new Map<string, RoutableModel>();
  const aliases = new Map<string, RoutableModel>();
  for (const model of catalog.models) {
    const endpoints = model.endpoints.map((endpoint) => ({
      provider: providers.get(endpoint.provider)!,
      upstreamModel: endpoint.upstreamModel,
      priceVersion: version,
      supportedParameters: new Set(endpoint.supportedParameters ?? model.supportedParameters),
      ...(endpoint.serviceTiers ? { serviceTiers: endpoint.serviceTiers } : {}),
      pricing: pricingOf(endpoint.pricing),
      ...(endpoint.batch ? { batchPricing: pricingOf(endpoint.batch.pricing) } : {}),
      ...extraPricesOf(endpoint.pricing),
      ...(endpoint.priority !== undefined ? { priority: endpoint.priority } : {}),
      ...(endpoint.weight !== undefined ? { weight: endpoint.weight } : {}),
      ...(endpoint.failsOnPurpose ? { failsOnPurpose: true } : {}),
      ...(endpoint.credentials
        ? {
            gatewayKeys: endpoint.credentials
              .map((credential, index) => ({
                index,
                apiKey: credential.apiKey,
                ...(credential.weight !== undefined ? { weight: credential.weight } : {}),
              }))
              .filter((credential) => credential.apiKey !== ''),
          }
        : {}),
    }));
    const routable = { config: model, endpoints };
    models.set(model.id, routable);
    for (const alias of model.aliases ?? []) aliases.set(alias, routable);
  }
  return { version, loadedAt: Math.floor(Date.now() / 1000), models, aliases };
}

/** Whether the gateway holds a key of its own for this endpoint (BYOK aside). */
export function gatewayHoldsKey(endpoint: RoutableEndpoint): boolean {
  return endpoint.gatewayKeys ? endpoint.gatewayKeys.length > 0 : hasGatewayCredential(endpoint.provider);
}

function pricingOf(pricing: PricingConfig): EndpointPricing {
  return {
    prompt: new Prisma.Decimal(pricing.prompt),
    completion: new Prisma.Decimal(pricing.completion),
    cachedPrompt: new Prisma.Decimal(pricing.cachedPrompt ?? pricing.prompt),
    ...(pricing.cacheWritePrompt ? { cacheWritePrompt: new Prisma.Decimal(pricing.cacheWritePrompt) } : {}),
    ...(pricing.audioPrompt ? { audioPrompt: new Prisma.Decimal(pricing.audioPrompt) } : {}),
    ...(pricing.audioCompletion ? { audioCompletion: new Prisma.Decimal(pricing.audioCompletion) } : {}),
    ...(pricing.imageCompletion ? { imageCompletion: new Prisma.Decimal(pricing.imageCompletion) } : {}),
    ...(pricing.request ? { request: new Prisma.Decimal(pricing.request) } : {}),
    ...(pricing.tiers && pricing.tiers.length > 0
      ? {
          tiers: [...pricing.tiers]
            .sort((a, b) => a.promptTokensAbove - b.promptTokensAbove)
            .map((tier) => ({
              promptTokensAbove: tier.promptTokensAbove,
              prompt: new Prisma.Decimal(tier.prompt),
              completion: new Prisma.Decimal(tier.completion),
              cachedPrompt: new Prisma.Decimal(tier.cachedPrompt ?? tier.prompt),
              ...(tier.cacheWritePrompt ? { cacheWritePrompt: new Prisma.Decimal(tier.cacheWritePrompt) } : {}),
            })),
        }
      : {}),
    ...(pricing.timeWindows && pricing.timeWindows.length > 0
      ? {
          windows: pricing.timeWindows.map((window) => ({
            name: window.name,
            ...(window.days ? { days: new Set(window.days.map((day) => WEEKDAYS.indexOf(day))) } : {}),
            start: minutesOf(window.start),
            end: minutesOf(window.end),
            prompt: new Prisma.Decimal(window.prompt),
            completion: new Prisma.Decimal(window.completion),
            cachedPrompt: new Prisma.Decimal(window.cachedPrompt ?? window.prompt),
            ...(window.cacheWritePrompt ? { cacheWritePrompt: new Prisma.Decimal(window.cacheWritePrompt) } : {}),
          })),
        }
      : {}),
  };
}

function extraPricesOf(pricing: PricingConfig): { extraPrices?: ExtraPrices } {
  const extra: ExtraPrices = {
    ...(pricing.reasoning ? { reasoning: pricing.reasoning } : {}),
    ...(pricing.request ? { request: pricing.request } : {}),
    ...(pricing.webSearch ? { webSearch: pricing.webSearch } : {}),
  };
  return Object.keys(extra).length > 0 ? { extraPrices: extra } : {};
}
