import { Inject, Injectable } from '@nestjs/common';
import type { ChatCreateRequest } from '@gw/contracts';
import { assertMaySpend } from '@gw/usage';
import { SpendHolds } from '../billing/spend-holds.service.js';
import { worstCaseChatCharge } from '../billing/worst-case-charge.js';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import type { ChatCallContext } from '../providers/provider-adapter.js';
import { PluginPipeline, type PluginSession } from '../plugins/plugin-pipeline.service.js';
import { ByokCredentialsService } from '../resolution/byok-credentials.service.js';
import { PresetsService } from '../resolution/presets.service.js';
import { ProviderRouter, type PlannedRoute } from '../routing/provider-router.service.js';
import { createHash } from 'node:crypto';
import { tracingEnabled } from '@gw/telemetry';
import { recordCallerTrace } from './caller-trace.js';
import { promptMediaOf, type RequestFacts } from '../usage/request-facts.js';

/** The end-user id as providers see it: hashed per workspace, never raw. */
export function hashEndUser(workspaceId: string, user: unknown): string | undefined {
  if (typeof user !== 'string' || user.length === 0) return undefined;
  return createHash('sha256').update(`${workspaceId}:${user}`).digest('hex').slice(0, 32);
}

/** The session id routing sticks to: the gateway's choice (body wins over header), else the body's. */
function sessionIdOf(request: { sessionId?: string; body: Record<string, unknown> }): string | undefined {
  if (request.sessionId) return request.sessionId;
  return typeof request.body.session_id === 'string' && request.body.session_id.length > 0 ? request.body.session_id : undefined;
}

export interface PreparedChat {
  /** The request body with its preset applied. */
  body: Record<string, unknown>;
  sessionId?: string;
  plan: PlannedRoute;
  /** The call context every attempt starts from (BYOK attempts add their key). */
  base: ChatCallContext;
  /** The request's plugins: what ran before the model, what runs on its answer. */
  plugins?: PluginSession;
  /** What each of its generations records about the request (preset, router, media counts, moderation time). */
  facts: RequestFacts;
}

/**
 * What a chat request goes through before its first provider call, streamed or not, in this
 * order: the spend check (402 before anything else), the preset, the plugins' checks and the
 * auto-router's choice, the session id, the workspace's BYOK keys, the routing plan, the spend
 * reservation of its worst case, then the prompt plugins on the routed request.
 * The caller ends the reservation when the request ends (`SpendHolds.around`).
 */
@Injectable()
export class ChatPreparation {
  constructor(
    private readonly router: ProviderRouter,
    private readonly presets: PresetsService,
    private readonly byok: ByokCredentialsService,
    private readonly plugins: PluginPipeline,
    private readonly holds: SpendHolds,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    this.byokFeeRate = new Prisma.Decimal(env.BYOK_FEE_RATE);
  }

  private readonly byokFeeRate: Prisma.Decimal;

  /**
   * `request.body` is the internal form (a chat-completions body; other front doors translate
   * theirs first). `options.presetVariables` fill the preset's `{{placeholders}}` (a
   * Responses stored prompt).
   */
  async prepare(
    request: Pick<ChatCreateRequest, 'principal' | 'body' | 'sessionId' | 'client'>,
    signal?: AbortSignal,
    options: { presetVariables?: Readonly<Record<string, string>>; stream?: boolean; countOnly?: boolean } = {},
  ): Promise<PreparedChat> {
    const { principal } = request;
    // Spec §4.5 trace metadata: links this request's span to the caller's trace.
    if (tracingEnabled()) recordCallerTrace(request.body.trace);
    assertMaySpend(principal);
    const { body: withPreset, presetId } = await this.presets.apply(principal.workspaceId, request.body, options.presetVariables);
    const { body: chosen, session: plugins } = this.plugins.begin(withPreset, { stream: options.stream ?? withPreset.stream === true });
    const sessionId = sessionIdOf({ sessionId: request.sessionId, body: chosen });
    const { credentials, models: workspaceModels } = await this.byok.routingOf(principal.workspaceId);
    const plan = this.router.plan({ principal, body: chosen, sessionId, credentials, workspaceModels });
    // The worst case is held before anything is paid for (a plugin's search included); 402 when it does not fit.
    const contextLengths = new Map(plan.candidates.map((candidate) => [candidate.modelId, candidate.model.config.contextLength]));
    const contextLengthOf = (modelId: string) => contextLengths.get(modelId)!;
    // A token count generates nothing, so it holds nothing (and has no end that would release a hold).
    if (!options.countOnly)
      await this.holds.reserve(principal, worstCaseChatCharge(plan.attempts, chosen, contextLengthOf, this.byokFeeRate));
    const body = await this.plugins.prepareInput(plugins, chosen, { principal, credentials, signal, sessionId, route: plan });
    // The session's cache affinity key for hosts that take one (prompt_cache_key): hashed like the end user.
    const sessionCacheKey = sessionId ? hashEndUser(principal.workspaceId, `session:${sessionId}`) : undefined;
    const facts: RequestFacts = { ...promptMediaOf(withPreset.messages) };
    if (presetId) facts.presetId = presetId;
    if (plugins.autoRouter) facts.router = plugins.autoRouter.requested;
    if (plugins.moderationLatencyMs !== undefined) facts.moderationLatencyMs = plugins.moderationLatencyMs;
    if (plugins.search) {
      facts.numSearchResults = plugins.search.results;
      facts.webSearchEngine = plugins.search.engine;
    }
    if (plugins.pagesFetched !== undefined) facts.numFetches = plugins.pagesFetched;
    if (request.client) facts.client = request.client;
    if (typeof withPreset.user === 'string' && withPreset.user.length > 0) facts.externalUser = withPreset.user;
    return {
      body,
      sessionId,
      plan,
      plugins,
      base: { endUserHash: hashEndUser(principal.workspaceId, body.user), sessionCacheKey, signal },
      facts,
    };
  }
}
