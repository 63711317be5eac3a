import type { RoutableEndpoint, RoutableModel } from '../catalog/catalog.service.js';

/** Which key pays the provider for one attempt. */
export type AttemptCredential =
  /** The gateway's key: its provider's, or one of the endpoint's own (`keyIndex` in its catalog list). */
  | { kind: 'gateway'; keyIndex?: number; apiKey?: string }
  /** The workspace's own provider key (BYOK), plaintext in memory only. */
  | { kind: 'byok'; credentialId: string; apiKey: string };

/** One catalog endpoint of one public model, as routing sees it. */
export interface RouteCandidate {
  modelId: string;
  /** The model the id resolved to (the catalog's or the workspace's own). */
  model: RoutableModel;
  endpoint: RoutableEndpoint;
  /** Stable name of the endpoint for health and stickiness: provider id + upstream model. */
  endpointKey: string;
}

/** One call to make, in order, until one succeeds. */
export interface RouteAttempt extends RouteCandidate {
  credential: AttemptCredential;
}

/** The provider's rate limits are per account: a `retry-after` holds this endpoint with this key only. */
export function cooldownKeyOf(attempt: RouteAttempt): string {
  const { credential } = attempt;
  if (credential.kind === 'byok') return `${attempt.endpointKey}|${credential.credentialId}`;
  return `${attempt.endpointKey}|gateway${credential.keyIndex === undefined ? '' : `#${credential.keyIndex}`}`;
}

export type ProviderSort = 'price' | 'throughput' | 'latency';

/** The request's `provider` object (OpenRouter's provider routing preferences). */
export interface ProviderPreferences {
  order: string[] | null;
  /** false: the first endpoint of each model only, no backup provider. */
  allowFallbacks: boolean;
  only: string[] | null;
  ignore: string[] | null;
  sort: ProviderSort | null;
  /**
   * What `sort` orders: `model` sorts each model's endpoints and keeps the models in order (the
   * default; the deprecated `route: "fallback"`), `none` sorts the endpoints of every model
   * together (`route: "sort"`).
   */
  partition: 'model' | 'none';
  /** Only endpoints that take every parameter of the request (`require_parameters: true`). */
  requireParameters: boolean;
}

export interface RoutePlan {
  /** The model id the client asked for (after preset resolution). */
  requested: string;
  /** How the order was decided, e.g. `default`, `order`, `sort:price`, `sticky` (reported in service_metadata). */
  strategy: string;
  /** Every endpoint that passed only/ignore, in the order decided (service_metadata.endpoints.available). */
  candidates: RouteCandidate[];
  attempts: RouteAttempt[];
  /** The gated parameters the request sets (parameter-support.ts): those the answering endpoint lacks are dropped and reported. */
  requestedParameters: string[];
}

/** A public model id with its catalog entry, primary first, then the `models` fallbacks. */
export interface ModelChoice {
  id: string;
  model: RoutableModel;
}

export function endpointKeyOf(endpoint: RoutableEndpoint): string {
  return endpoint.key ?? `${endpoint.provider.id}/${endpoint.upstreamModel}`;
}
