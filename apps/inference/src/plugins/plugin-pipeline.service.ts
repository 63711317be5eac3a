import { Inject, Injectable } from '@nestjs/common';
import { GatewayError } from '@gw/errors';
import type { AnnotationView, ChatUsageView, Principal, ResolvedByokCredential, ServiceMetadataView } from '@gw/contracts';
import { CatalogService } from '../catalog/catalog.service.js';
import { promptMediaOf } from '../usage/request-facts.js';
import type { PreparedChat } from '../shared-pipeline/chat-preparation.service.js';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { ModelCalls } from '../shared-pipeline/model-calls.service.js';
import { buildUsageView } from '../shared-pipeline/usage-view.js';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import type { NormalizedCompletion, NormalizedUsage } from '../providers/provider-adapter.js';
import { ProviderRouter, type PlannedRoute } from '../routing/provider-router.service.js';
import { urlCitations, type CitableSource } from '../server-tools/citations.js';
import { ServerToolRunner } from '../server-tools/server-tool-runner.service.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { alignmentFailure, judge, rulesInstruction, type AlignmentRecord } from './alignment.plugin.js';
import { AUTO_MODELS, chooseModel, type AutoRouterChoice } from './auto-router.plugin.js';
import { compressMiddleOut, type Compression } from './context-compression.plugin.js';
import { filesAsText, hasFiles } from './file-parser.plugin.js';
import { moderate } from './moderation.plugin.js';
import type { PluginModelCall } from './plugin-model-call.js';
import { hasPlugins, parsePlugins, type PluginPlan } from './plugin-request.js';
import { healCompletion } from './response-healing.plugin.js';
import { CitationMarkerStripper, stripCitationMarkers } from './strip-citation-markers.plugin.js';
import { domainVerdict, urlsToFetch, withFetchedPages, type FetchOutcome } from './web-fetch.plugin.js';
import { filterResults, searchQueryOf, withSearchResults } from './web.plugin.js';

type Json = Record<string, unknown>;

/** What one request's plugins decided and ran, carried from before the model call to the answer. */
export interface PluginSession {
  plan: PluginPlan;
  /** Pages the answer may cite (web, web-fetch): url_citation annotations. */
  sources: CitableSource[];
  /** Searches and fetches the plugins ran: charged once, on the answer's first generation. */
  toolCost: Prisma.Decimal;
  webSearchRequests: number;
  toolCallsExecuted: number;
  toolChargesTaken: boolean;
  /** The plugins' own model calls (moderation, alignment judge), each already its own generation. */
  extraUsage: ChatUsageView[];
  autoRouter?: AutoRouterChoice & { requested: string };
  compression?: Compression;
  /** Who the plugins' own model calls are for (set by prepareInput). */
  caller?: PluginCallContext;
  /** Milliseconds the moderation plugin took on the input. */
  moderationLatencyMs?: number;
  /** The web plugin's search: results put in the prompt (after the domain filters) and the engine. */
  search?: { results: number; engine: string };
  /** Pages the web-fetch plugin read into the prompt (refused and failed URLs not counted). */
  pagesFetched?: number;
}

/** Who the plugins' own model calls are made for. */
export interface PluginCallContext {
  principal: Principal;
  credentials: readonly ResolvedByokCredential[];
  signal?: AbortSignal;
  /** The request's session: the plugins' generation records carry it too. */
  sessionId?: string;
}

/** What a streamed answer's text goes through (strip-citation-markers, then citations at the end). */
export interface StreamTextTransform {
  text(piece: string): string;
  /** The held-back rest of the text and the annotations of the whole text sent. */
  end(): { text: string; annotations?: AnnotationView[] };
}

/**
 * The plugin pipeline around every chat and Responses model call: `begin` checks
 * `plugins` and lets auto-router choose the model (before routing); `prepareInput` runs the
 * prompt plugins on the routed request (moderation of the input, file-parser, web-fetch, web,
 * alignment's instructions, context-compression, in that order); `finishAnswer` runs the
 * answer plugins (response-healing, citations, strip-citation-markers, moderation of the
 * output, alignment with its retries). One file per plugin in this folder; the registry
 * (plugin-registry.ts) lists every id and says which are refused and why.
 */
@Injectable()
export class PluginPipeline {
  private readonly moderationModel: string;
  private readonly judgeModel: string;
  private readonly moderateOutput: boolean;

  constructor(
    private readonly runner: ServerToolRunner,
    private readonly catalog: CatalogService,
    private readonly router: ProviderRouter,
    private readonly calls: ModelCalls,
    private readonly accounting: GenerationAccounting,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    this.moderationModel = env.MODERATION_MODEL;
    this.judgeModel = env.ALIGNMENT_JUDGE_MODEL;
    this.moderateOutput = env.MODERATION_CHECK_OUTPUT === 'true';
  }

  /**
   * Before routing: the plugins checked (400s), `plugins` taken off the body, and the model
   * chosen when auto-router is on or the model is `openrouter/auto` (auto-router's defaults).
   */
  begin(body: Json, options: { stream: boolean }): { body: Json; session: PluginSession } {
    const plan = parsePlugins(body, { stream: options.stream, searchBackend: this.runner.backendName });
    const { plugins: _plugins, ...rest } = body;
    const session: PluginSession = {
      plan,
      sources: [],
      toolCost: new Prisma.Decimal(0),
      webSearchRequests: 0,
      toolCallsExecuted: 0,
      toolChargesTaken: false,
      extraUsage: [],
    };
    const requested = typeof rest.model === 'string' ? rest.model : undefined;
    if (!plan.autoRouter && requested && AUTO_MODELS.has(requested)) plan.autoRouter = { pinModel: false };
    if (!plan.autoRouter) return { body: rest, session };
    if (requested !== undefined && !AUTO_MODELS.has(requested)) {
      throw GatewayError.badRequest(
        `the auto-router plugin chooses the model: set model to "openrouter/auto" (or leave the plugin out to call ${requested})`,
        { reason: 'invalid_plugin_option', plugin: 'auto-router' },
      );
    }
    const choice = chooseModel(rest, plan.autoRouter, this.catalog.all(), {
      filesAsText: plan.fileParser !== undefined && plan.fileParser.engine !== 'native',
    });
    session.autoRouter = { ...choice, requested: requested ?? 'openrouter/auto' };
    return { body: { ...rest, model: choice.model }, session };
  }

  /** After routing, before the model: the prompt plugins, in order. */
  async prepareInput(session: PluginSession, body: Json, context: PluginCallContext & { route: PlannedRoute }): Promise<Json> {
    const { plan } = session;
    session.caller = {
      principal: context.principal,
      credentials: context.credentials,
      signal: context.signal,
      sessionId: context.sessionId,
    };
    if (!hasPlugins(plan)) return body;
    let messages = (body.messages as Json[] | undefined) ?? [];
    if (plan.moderation) {
      const started = performance.now();
      await moderate(this.modelCall(session, context), this.moderationModel, messages, 'input');
      session.moderationLatencyMs = Math.round(performance.now() - started);
    }
    if (plan.fileParser && hasFiles(messages)) {
      const readFiles = plan.fileParser.engine === 'text' || (plan.fileParser.engine === 'auto' && !this.allRead(context.route, 'file'));
      if (readFiles)
        messages = (await filesAsText(messages, async (url) => (await this.runner.fetchPage(url, context.signal)).text)).messages;
    }
    if (plan.webFetch) {
      session.pagesFetched = 0;
      const outcomes: FetchOutcome[] = [];
      for (const url of urlsToFetch(messages).slice(0, plan.webFetch.maxUses)) {
        const refused = domainVerdict(url, plan.webFetch);
        if (refused) {
          outcomes.push({ url, error: `not fetched: ${refused}` });
          continue;
        }
        try {
          outcomes.push({ url, page: await this.runner.fetchPage(url, context.signal) });
          session.toolCost = session.toolCost.add(this.runner.prices.fetch);
          session.toolCallsExecuted++;
          session.pagesFetched++;
        } catch (error) {
          outcomes.push({ url, error: (error as Error).message });
        }
      }
      if (outcomes.length > 0) {
        const fetched = withFetchedPages(messages, outcomes, plan.webFetch);
        messages = fetched.messages;
        session.sources.push(...fetched.sources);
      }
    }
    if (plan.web) {
      const query = searchQueryOf(messages);
      if (query) {
        // A failed search fails the request: the caller asked for an answer built on one (a 502 naming the backend).
        const results = await this.runner.search(query, plan.web.maxResults, context.signal).catch((error: Error) => {
          throw new GatewayError(502, `the web plugin's search failed: ${error.message}`, { metadata: { plugin: 'web' } });
        });
        const kept = filterResults(results, plan.web);
        session.search = { results: kept.length, engine: this.runner.backendName };
        const searched = withSearchResults(messages, kept, plan.web);
        messages = searched.messages;
        session.sources.push(...searched.sources);
        session.toolCost = session.toolCost.add(this.runner.prices.search);
        session.webSearchRequests++;
        session.toolCallsExecuted++;
      }
    }
    if (plan.alignment?.instruct) messages = [{ role: 'system', content: rulesInstruction(plan.alignment.rules) }, ...messages];
    if (plan.contextCompression) {
      const contextLength = Math.min(...context.route.candidates.map((candidate) => candidate.model.config.contextLength));
      const budget =
        typeof body.max_completion_tokens === 'number'
          ? body.max_completion_tokens
          : typeof body.max_tokens === 'number'
            ? body.max_tokens
            : 0;
      if (Number.isFinite(contextLength)) {
        const compressed = compressMiddleOut(messages, contextLength, budget);
        messages = compressed.messages;
        session.compression = compressed.compression;
      }
    }
    return { ...body, messages };
  }

  /**
   * The searches and fetches the plugins ran, for the answer's first generation only: its
   * usage gains their counts (spec §2.1 server_tool_use) and its charge their price.
   */
  takeToolCharges(session: PluginSession | undefined, usage: NormalizedUsage): { usage: NormalizedUsage; toolCost?: Prisma.Decimal } {
    if (!session || session.toolChargesTaken || session.toolCallsExecuted === 0) return { usage };
    session.toolChargesTaken = true;
    const before = usage.serverToolUse;
    const serverToolUse = {
      toolCallsRequested: (before?.toolCallsRequested ?? 0) + session.toolCallsExecuted,
      toolCallsExecuted: (before?.toolCallsExecuted ?? 0) + session.toolCallsExecuted,
      webSearchRequests: (before?.webSearchRequests ?? 0) + session.webSearchRequests,
    };
    return { usage: { ...usage, serverToolUse }, toolCost: session.toolCost };
  }

  /**
   * After the model: the answer plugins. `retry` makes one more model call (alignment in
   * enforce mode) and resolves to its completion, already settled by the front door.
   */
  async finishAnswer(
    session: PluginSession | undefined,
    completion: NormalizedCompletion,
    messages: readonly Json[],
    retry?: () => Promise<NormalizedCompletion>,
  ): Promise<{ completion: NormalizedCompletion; alignment?: AlignmentRecord }> {
    if (!session?.caller || !hasPlugins(session.plan)) return { completion };
    const { plan } = session;
    const context = { ...session.caller, messages };
    let current = await this.rewriteAnswer(session, completion, context);
    if (!plan.alignment) return { completion: current };
    const record: AlignmentRecord = { calls: [] };
    for (let call = 1; ; call++) {
      const text = current.choices[0]?.message.content ?? '';
      const rules = await judge(this.modelCall(session, context), this.judgeModel, plan.alignment, text);
      const broken = rules.some((rule) => rule.broken);
      record.calls.push({ call, outcome: !broken ? 'allowed' : plan.alignment.mode === 'audit' ? 'flagged' : 'blocked', rules });
      if (!broken || plan.alignment.mode === 'audit') return { completion: current, alignment: record };
      if (call > plan.alignment.maxRetries || !retry) throw alignmentFailure(record);
      current = await this.rewriteAnswer(session, await retry(), context);
    }
  }

  private async rewriteAnswer(
    session: PluginSession,
    completion: NormalizedCompletion,
    context: PluginCallContext & { messages: readonly Json[] },
  ): Promise<NormalizedCompletion> {
    const { plan } = session;
    if (plan.responseHealing) healCompletion(completion, plan.responseHealing);
    for (const choice of completion.choices) {
      const message = choice.message;
      if (typeof message.content !== 'string') continue;
      if (session.sources.length > 0) {
        const cited = urlCitations(message.content, session.sources);
        if (cited.length > 0) message.annotations = [...(message.annotations ?? []), ...cited];
      }
      if (plan.stripCitationMarkers) {
        const stripped = stripCitationMarkers(message.content, message.annotations);
        message.content = stripped.text;
        if (stripped.annotations) message.annotations = stripped.annotations;
      }
    }
    if (plan.moderation && this.moderateOutput) {
      const answer = completion.choices[0]?.message.content;
      if (answer)
        await moderate(
          this.modelCall(session, context),
          this.moderationModel,
          [...context.messages, { role: 'assistant', content: answer }],
          'output',
        );
    }
    return completion;
  }

  /** The streamed text's transform, when a plugin rewrites streamed text (strip-citation-markers) or cites (web, web-fetch). */
  streamTransform(session: PluginSession | undefined): StreamTextTransform | undefined {
    if (!session || (!session.plan.stripCitationMarkers && session.sources.length === 0)) return undefined;
    const stripper = session.plan.stripCitationMarkers ? new CitationMarkerStripper() : undefined;
    let sent = '';
    return {
      text: (piece) => {
        const out = stripper ? stripper.push(piece) : piece;
        sent += out;
        return out;
      },
      end: () => {
        const rest = stripper ? stripper.flush() : '';
        sent += rest;
        const annotations = session.sources.length > 0 ? urlCitations(sent, session.sources) : [];
        return { text: rest, ...(annotations.length > 0 ? { annotations } : {}) };
      },
    };
  }

  /** Routing metadata says the auto-router chose (spec §2.6 `requested`, `strategy`, `summary`). */
  decorateMetadata(session: PluginSession | undefined, metadata: ServiceMetadataView | undefined): ServiceMetadataView | undefined {
    if (!metadata || !session?.autoRouter) return metadata;
    const { requested, model, candidates, rule } = session.autoRouter;
    return {
      ...metadata,
      requested,
      strategy: 'auto-router',
      summary: `auto-router chose ${model} (${rule}, of ${candidates} candidates); ${metadata.summary}`,
    };
  }

  /** The answer's usage with the plugins' own model calls added (each its own generation record). */
  withExtraUsage<T extends object>(
    session: PluginSession | undefined,
    usage: T,
    sum: (views: readonly T[]) => T,
    convert: (view: ChatUsageView) => T,
  ): T {
    if (!session || session.extraUsage.length === 0) return usage;
    return sum([usage, ...session.extraUsage.map(convert)]);
  }

  private allRead(route: PlannedRoute, modality: string): boolean {
    return route.candidates.every((candidate) => (candidate.model.config.inputModalities ?? ['text']).includes(modality));
  }

  private modelCall(session: PluginSession, context: PluginCallContext): PluginModelCall {
    return async (model, messages, options = {}) => {
      const body: Json = { model, messages };
      if (options.maxTokens) body.max_completion_tokens = options.maxTokens;
      if (options.responseFormat) body.response_format = options.responseFormat;
      const route = this.router.plan({ principal: context.principal, body, credentials: context.credentials });
      const prepared: PreparedChat = { body, plan: route, base: { signal: context.signal }, facts: promptMediaOf(messages) };
      const { result, attempt, tracker } = await this.calls.complete(prepared, 'chat');
      const charge = await this.accounting.settle({
        generationId: newGenerationId(),
        principal: context.principal,
        attempt,
        tracker,
        usage: result.usage,
        status: 'succeeded',
        sessionId: context.sessionId,
      });
      session.extraUsage.push(buildUsageView(result.usage, charge.upstream, charge.isByok, charge.charged));
      return result.choices[0]?.message.content ?? '';
    };
  }
}
