import { registerEndpointHealthGauges } from './routing-metrics.js';
import { Inject, Injectable } from '@nestjs/common';
import type { Principal, ResolvedByokCredential } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { CatalogService } from '../catalog/catalog.service.js';
import { assertChatModel } from '../catalog/model-kind.js';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { EndpointCooldowns } from './endpoint-cooldowns.service.js';
import { EndpointHealthTracker } from './endpoint-health.js';
import { applyGuardrails } from './guardrail-filter.js';
import { noEndpointSupports, requestedParameters as requestedParametersOf, unsupportedParameters } from './parameter-support.js';
import { parseProviderPreferences } from './provider-preferences.js';
import { executeRoute, type RouteResult } from './route-executor.js';
import { planRoute } from './route-planner.js';
import type { ModelChoice, RouteAttempt, RoutePlan } from './route-types.js';
import type { RoutableModel } from '../catalog/catalog.service.js';
import { requestedTier } from './service-tier.js';
import { SessionAffinity } from './session-affinity.js';
import type { AttemptTracker } from './attempt-tracker.js';

/** Longest `models` fallback list, as OpenRouter bounds it. */
const MAX_FALLBACK_MODELS = 10;

export interface PlanRequest {
  principal: Principal;
  /** The chat body after preset resolution: `model`, `models`, `provider` are read. */
  body: Record<string, unknown>;
  /** Body `session_id` or the `x-session-id` header (the gateway already chose). */
  sessionId?: string;
  credentials: readonly ResolvedByokCredential[];
  /** What the models must serve: a chat request refuses an embeddings model (and its fallbacks) with 400. */
  purpose?: 'chat' | 'embeddings';
  /** The workspace's own models (resolved before the catalog's, for this workspace only). */
  workspaceModels?: ReadonlyMap<string, RoutableModel>;
}

/** A plan with what `execute` needs to remember the session's endpoint on success. */
export interface PlannedRoute extends RoutePlan {
  workspaceId: string;
  sessionId?: string;
}

/**
 * Routes every inference path (chat, streamed chat, embeddings, native batches): it plans and
 * runs. `plan()` turns a request into ordered attempts (pure planner, route-planner.ts),
 * `execute()` runs them (route-executor.ts) and keeps endpoint health (cooldowns shared by
 * every replica) and this replica's session stickiness up to date.
 */
@Injectable()
export class ProviderRouter {
  readonly health: EndpointHealthTracker;
  private readonly affinity: SessionAffinity;

  constructor(
    private readonly catalog: CatalogService,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
    cooldowns: EndpointCooldowns,
  ) {
    this.health = new EndpointHealthTracker(Date.now, cooldowns, env.ENDPOINT_COOLDOWN_SECONDS * 1000, env.ENDPOINT_FAILURES_TO_COOL);
    this.affinity = new SessionAffinity({ maxSessions: env.ROUTING_SESSION_MAX, ttlMs: env.ROUTING_SESSION_TTL_SECONDS * 1000 });
    registerEndpointHealthGauges(this.health);
  }

  plan(request: PlanRequest): PlannedRoute {
    const { principal, body, sessionId } = request;
    const requestedModels = this.modelChoices(body, request.workspaceModels);
    if ((request.purpose ?? 'chat') === 'chat') for (const choice of requestedModels) assertChatModel(choice.id, choice.model);
    // The key's guardrails first: what they deny is out before preferences or fallbacks are read.
    const models = applyGuardrails(requestedModels, principal.guardrails);
    const requestedParameters = requestedParametersOf(body);
    const preferences = parseProviderPreferences(body.provider, body.route);
    const plan = planRoute({
      models,
      requestedParameters,
      serviceTier: requestedTier(body),
      preferences,
      credentials: request.credentials,
      requester: { keyHash: principal.keyHash, userId: principal.userId },
      health: this.health,
      stickyEndpointKey: sessionId ? this.affinity.endpointFor(principal.workspaceId, models[0]!.id, sessionId) : undefined,
    });
    if (preferences.requireParameters && plan.candidates.length === 0) {
      // Name what no endpoint of any of the models takes (or everything missing somewhere).
      const endpoints = models.flatMap((choice) => choice.model.endpoints);
      const missing = requestedParameters.filter((parameter) =>
        endpoints.every((endpoint) => unsupportedParameters(endpoint, [parameter]).length > 0),
      );
      throw noEndpointSupports(
        plan.requested,
        missing.length > 0 ? missing : [...new Set(endpoints.flatMap((endpoint) => unsupportedParameters(endpoint, requestedParameters)))],
      );
    }
    return { ...plan, workspaceId: principal.workspaceId, sessionId };
  }

  /** Runs the attempts; `call` resolves when the provider accepted (for streams: at its response head). */
  async execute<T>(plan: PlannedRoute, call: (attempt: RouteAttempt) => Promise<T>, tracker?: AttemptTracker): Promise<RouteResult<T>> {
    const outcome = await executeRoute(plan, call, this.health, tracker);
    if (plan.sessionId) this.affinity.remember(plan.workspaceId, plan.requested, plan.sessionId, outcome.attempt.endpointKey);
    return outcome;
  }

  /** Feeds the throughput sort once a generation has finished. */
  recordGeneration(attempt: RouteAttempt, completionTokens: number, generationMs: number): void {
    this.health.recordThroughput(attempt.endpointKey, completionTokens, generationMs);
  }

  /** `model`, then the body's `models` (deduplicated); each the workspace's or the catalog's (404 otherwise). */
  private modelChoices(body: Record<string, unknown>, workspaceModels?: ReadonlyMap<string, RoutableModel>): ModelChoice[] {
    const ids = [String(body.model)];
    if (body.models !== undefined && body.models !== null) {
      if (!Array.isArray(body.models) || !body.models.every((id) => typeof id === 'string' && id.length > 0)) {
        throw GatewayError.badRequest('models must be an array of model ids');
      }
      if (body.models.length > MAX_FALLBACK_MODELS) throw GatewayError.badRequest(`models may list at most ${MAX_FALLBACK_MODELS} models`);
      for (const id of body.models as string[]) if (!ids.includes(id)) ids.push(id);
    }
    return ids.map((id) => ({ id, model: workspaceModels?.get(id) ?? this.catalog.resolve(id) }));
  }
}
