import { Inject, Injectable } from '@nestjs/common';
import type { ModelListView, ModelPriceWindowView, ModelView } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { catalogPaths, loadCatalog } from './catalog.loader.js';
import {
  buildSnapshot,
  gatewayHoldsKey,
  type CatalogSnapshot,
  type EndpointPricing,
  type ExtraPrices,
  type RoutableEndpoint,
  type RoutableModel,
} from './catalog-snapshot.js';
import { Prisma } from '../generated/prisma/client.js';
import type { PriceWindowPricing } from '../pricing/price-windows.js';
import { WEEKDAYS } from './catalog.schema.js';

export type { EndpointPricing, ExtraPrices, PriceTierPricing, RoutableEndpoint, RoutableModel } from './catalog-snapshot.js';

/**
 * The model catalog in memory, so routing never reads a file or a database. It starts as the
 * catalog files (version 0, until the stored catalog is loaded: catalog-sync.service.ts) and is
 * replaced whole by each new version: one reference swapped, never a map changed in place. An
 * endpoint whose provider has no API key of the gateway's stays routable for workspaces that
 * bring their own (BYOK), but /v1/models lists only models the gateway itself can call.
 */
@Injectable()
export class CatalogService {
  private snapshot: CatalogSnapshot;

  constructor(@Inject(INFERENCE_ENV) env: InferenceEnv) {
    this.snapshot = buildSnapshot(loadCatalog(catalogPaths(env.MODEL_CATALOG_PATHS)), 0);
  }

  /** The version being served (0: the files, before the stored catalog was loaded). */
  get version(): number {
    return this.snapshot.version;
  }

  /** Serves `snapshot` from the next lookup on; requests already routed keep the one they resolved. */
  install(snapshot: CatalogSnapshot): void {
    this.snapshot = snapshot;
  }

  /** 404 `not_found` for a model id the catalog does not offer (documented in the app README). */
  resolve(modelId: string): RoutableModel {
    const model = this.find(modelId);
    if (!model) throw new GatewayError(404, `Model "${modelId}" is not available; GET /v1/models lists the models you can call`);
    return model;
  }

  /** The model by its id or an alias, or undefined when the catalog no longer has it (a stored generation may name one). */
  find(modelId: string): RoutableModel | undefined {
    const { models, aliases } = this.snapshot;
    return models.get(modelId) ?? aliases.get(modelId);
  }

  /** Every model of the catalog (the auto-router plugin chooses among them). */
  all(): RoutableModel[] {
    return [...this.snapshot.models.values()];
  }

  /**
   * The models a caller can use: listed ones with at least one endpoint the gateway holds a
   * credential for, or that `workspaceCan` admits (the workspace's own BYOK credential for that
   * provider and model). Each is shown at the price of the first such endpoint.
   */
  list(workspaceCan: (modelId: string, endpoint: RoutableEndpoint) => boolean = () => false): ModelListView {
    const data: ModelView[] = [];
    const { models, loadedAt } = this.snapshot;
    for (const model of models.values()) {
      if (model.config.listed === false) continue;
      const usable = model.endpoints.find((endpoint) => gatewayHoldsKey(endpoint) || workspaceCan(model.config.id, endpoint));
      if (usable) data.push(toModelView(model, usable, loadedAt));
    }
    return { object: 'list', data, total_count: data.length, links: { next: null } };
  }
}

/** OpenRouter's optional price fields, present only where the endpoint has such a price. */
function optionalPrices(pricing: EndpointPricing, extra: ExtraPrices = {}): Partial<ModelView['pricing']> {
  return {
    ...(pricing.cacheWritePrompt ? { input_cache_write: pricing.cacheWritePrompt.toFixed() } : {}),
    ...(pricing.audioPrompt ? { audio: pricing.audioPrompt.toFixed() } : {}),
    ...(extra.reasoning ? { internal_reasoning: new Prisma.Decimal(extra.reasoning).toFixed() } : {}),
    ...(extra.request ? { request: new Prisma.Decimal(extra.request).toFixed() } : {}),
    ...(extra.webSearch ? { web_search: new Prisma.Decimal(extra.webSearch).toFixed() } : {}),
    ...(pricing.windows ? { time_windows: pricing.windows.map(windowView) } : {}),
  };
}

function windowView(window: PriceWindowPricing): ModelPriceWindowView {
  return {
    name: window.name,
    ...(window.days ? { days: [...window.days].sort().map((day) => WEEKDAYS[day]!) } : {}),
    start: clockOf(window.start),
    end: clockOf(window.end),
    prompt: window.prompt.toFixed(),
    completion: window.completion.toFixed(),
    input_cache_read: window.cachedPrompt.toFixed(),
    ...(window.cacheWritePrompt ? { input_cache_write: window.cacheWritePrompt.toFixed() } : {}),
  };
}

const clockOf = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

export function toModelView(model: RoutableModel, endpoint: RoutableEndpoint, loadedAt: number): ModelView {
  const { config } = model;
  const { pricing } = endpoint;
  const input = config.inputModalities ?? ['text'];
  const output = config.outputModalities ?? ['text'];
  return {
    id: config.id,
    canonical_slug: config.id,
    object: 'model',
    created: loadedAt,
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
    ...(config.deprecation ? { expiration_date: config.deprecation.sunset ?? null } : {}),
  };
}
