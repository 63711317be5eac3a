import { Inject, Injectable } from '@nestjs/common';
import type { ModelListView, ModelView } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { Prisma } from '../generated/prisma/client.js';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { catalogPaths, loadCatalog } from './catalog.loader.js';
import { hasGatewayCredential, type ModelConfig, type PricingConfig, type ProviderConfig } from './catalog.schema.js';

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
  /** The request parameters this endpoint takes (its own list, else its model's; routing/parameter-support.ts). */
  supportedParameters: ReadonlySet<string>;
  /** The service tiers it takes, when the catalog lists them (routing/service-tier.ts). */
  serviceTiers?: readonly string[];
  /** Set when the endpoint runs batches at its provider's batch API, at this (lower) price (ADR 0047). */
  batchPricing?: EndpointPricing;
  extraPrices?: ExtraPrices;
}

export interface RoutableModel {
  config: ModelConfig;
  endpoints: RoutableEndpoint[];
}

/** Catalog load time, reported as each model's `created`. */
const LOADED_AT = Math.floor(Date.now() / 1000);

/**
 * The model catalog in memory: loaded and validated once at start, so routing never reads
 * a file or a database. An endpoint whose provider has no API key of the gateway's stays
 * routable for workspaces that bring their own (BYOK; routing then never tries the gateway's
 * empty key), but /v1/models lists only models the gateway itself can call (ADR 0008).
 */
@Injectable()
export class CatalogService {
  private readonly models = new Map<string, RoutableModel>();

  constructor(@Inject(INFERENCE_ENV) env: InferenceEnv) {
    const catalog = loadCatalog(catalogPaths(env.MODEL_CATALOG_PATHS));
    const providers = new Map(catalog.providers.map((provider) => [provider.id, provider]));
    for (const model of catalog.models) {
      const endpoints = model.endpoints
        .map((endpoint) => ({ endpoint, provider: providers.get(endpoint.provider)! }))
        .map(({ endpoint, provider }) => ({
          provider,
          upstreamModel: endpoint.upstreamModel,
          supportedParameters: new Set(endpoint.supportedParameters ?? model.supportedParameters),
          ...(endpoint.serviceTiers ? { serviceTiers: endpoint.serviceTiers } : {}),
          pricing: pricingOf(endpoint.pricing),
          ...(endpoint.batch ? { batchPricing: pricingOf(endpoint.batch.pricing) } : {}),
          ...extraPricesOf(endpoint.pricing),
        }));
      this.models.set(model.id, { config: model, endpoints });
    }
  }

  /** 404 `not_found` for a model id the catalog does not offer (documented in the app README). */
  resolve(modelId: string): RoutableModel {
    const model = this.models.get(modelId);
    if (!model) throw new GatewayError(404, `Model "${modelId}" is not available; GET /v1/models lists the models you can call`);
    return model;
  }

  /** The model, or undefined when the catalog no longer has it (a stored generation may name one). */
  find(modelId: string): RoutableModel | undefined {
    return this.models.get(modelId);
  }

  /** Every model of the catalog (the auto-router plugin chooses among them). */
  all(): RoutableModel[] {
    return [...this.models.values()];
  }

  /**
   * The models a caller can use: listed ones with at least one endpoint the gateway holds a
   * credential for, or that `workspaceCan` admits (the workspace's own BYOK credential for that
   * provider and model). Each is shown at the price of the first such endpoint.
   */
  list(workspaceCan: (modelId: string, endpoint: RoutableEndpoint) => boolean = () => false): ModelListView {
    const data: ModelView[] = [];
    for (const model of this.models.values()) {
      if (model.config.listed === false) continue;
      const usable = model.endpoints.find((endpoint) => hasGatewayCredential(endpoint.provider) || workspaceCan(model.config.id, endpoint));
      if (usable) data.push(toModelView(model, usable));
    }
    return { object: 'list', data, total_count: data.length, links: { next: null } };
  }
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

/** OpenRouter's optional price fields, present only where the endpoint has such a price. */
function optionalPrices(pricing: EndpointPricing, extra: ExtraPrices = {}): Partial<ModelView['pricing']> {
  return {
    ...(pricing.cacheWritePrompt ? { input_cache_write: pricing.cacheWritePrompt.toFixed() } : {}),
    ...(pricing.audioPrompt ? { audio: pricing.audioPrompt.toFixed() } : {}),
    ...(extra.reasoning ? { internal_reasoning: new Prisma.Decimal(extra.reasoning).toFixed() } : {}),
    ...(extra.request ? { request: new Prisma.Decimal(extra.request).toFixed() } : {}),
    ...(extra.webSearch ? { web_search: new Prisma.Decimal(extra.webSearch).toFixed() } : {}),
  };
}

function toModelView(model: RoutableModel, endpoint: RoutableEndpoint): ModelView {
  const { config } = model;
  const { pricing } = endpoint;
  const input = config.inputModalities ?? ['text'];
  const output = config.outputModalities ?? ['text'];
  return {
    id: config.id,
    canonical_slug: config.id,
    object: 'model',
    created: LOADED_AT,
    owned_by: config.id.split('/')[0] ?? config.id,
    name: config.name,
    context_length: config.contextLength,
    architecture: { modality: `${input.join('+')}->${output.join('+')}`, input_modalities: input, output_modalities: output },
    top_provider: { context_length: config.contextLength, max_completion_tokens: config.maxCompletionTokens ?? null, is_moderated: false },
    per_request_limits: null,
    default_parameters: null,
    supported_voices: null,
    links: { details: '/v1/models' },
    pricing: {
      prompt: pricing.prompt.toFixed(),
      completion: pricing.completion.toFixed(),
      input_cache_read: pricing.cachedPrompt.toFixed(),
      ...optionalPrices(endpoint.pricing, endpoint.extraPrices),
    },
    supported_parameters: config.supportedParameters,
  };
}
