import { Inject, Injectable } from '@nestjs/common';
import type { ModelListView, ModelView } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { catalogPaths, loadCatalog } from './catalog.loader.js';
import { hasGatewayCredential } from './catalog.schema.js';
import { buildSnapshot, type CatalogSnapshot, type RoutableEndpoint, type RoutableModel } from './catalog-snapshot.js';

export type { EndpointPricing, RoutableEndpoint, RoutableModel } from './catalog-snapshot.js';

/**
 * The model catalog in memory, so routing never reads a file or a database. It starts as the
 * catalog files (version 0, until the stored catalog is loaded: catalog-sync.service.ts) and is
 * replaced whole by each new version: one reference swapped, never a map changed in place. An
 * endpoint whose provider has no API key of the gateway's stays routable for workspaces that
 * bring their own (BYOK), but /v1/models lists only models the gateway itself can call (ADR 0008).
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

  list(): ModelListView {
    const { models, loadedAt } = this.snapshot;
    const data = [...models.values()]
      .filter((model) => model.config.listed !== false && gatewayEndpoints(model).length > 0)
      .map((model) => toModelView(model, loadedAt));
    return { object: 'list', data, total_count: data.length, links: { next: null } };
  }
}

/** The endpoints the gateway holds a key for (the others need the workspace's BYOK key). */
function gatewayEndpoints(model: RoutableModel): RoutableEndpoint[] {
  return model.endpoints.filter((endpoint) => hasGatewayCredential(endpoint.provider));
}

function toModelView(model: RoutableModel, loadedAt: number): ModelView {
  const { config } = model;
  const pricing = gatewayEndpoints(model)[0]!.pricing;
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
    top_provider: { context_length: config.contextLength, max_completion_tokens: null, is_moderated: false },
    per_request_limits: null,
    default_parameters: null,
    supported_voices: null,
    links: { details: '/v1/models' },
    pricing: {
      prompt: pricing.prompt.toFixed(),
      completion: pricing.completion.toFixed(),
      input_cache_read: pricing.cachedPrompt.toFixed(),
    },
    supported_parameters: config.supportedParameters,
    ...(config.deprecation ? { expiration_date: config.deprecation.sunset ?? null } : {}),
  };
}
