import { estimateTokens } from '../pricing/token-estimate.js';
import { embeddingsContent } from '../content/generation-content.js';
import { Inject, Injectable } from '@nestjs/common';
import type { EmbeddingsCreateRequest, EmbeddingsView } from '@gw/contracts';
import { assertMaySpend } from '@gw/usage';
import { SpendHolds } from '../billing/spend-holds.service.js';
import { worstCaseEmbeddingsCharge } from '../billing/worst-case-charge.js';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import { CatalogService } from '../catalog/catalog.service.js';
import { assertEmbeddingsModel } from '../catalog/model-kind.js';
import { hashEndUser } from '../shared-pipeline/chat-preparation.service.js';
import { callContextFor, newGenerationId } from '../shared-pipeline/generation-ids.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import { ByokCredentialsService } from '../resolution/byok-credentials.service.js';
import { ProviderRouter } from '../routing/provider-router.service.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { buildEmbeddingsView } from './embeddings-view.js';
import { BedrockEmbeddings } from '../providers/bedrock/bedrock-embeddings.js';
import { GeminiEmbeddings } from '../providers/gemini/gemini-embeddings.js';
import { VertexEmbeddings } from '../providers/gemini/vertex-embeddings.js';
import { OpenAiEmbeddingsClient, type UpstreamEmbeddings } from './openai-embeddings.client.js';

/**
 * POST /v1/embeddings: spend check, an embeddings model (400 for a chat model), the same
 * routing as chat (provider preferences, fallback on retryable failures, BYOK keys), the
 * price of the prompt tokens, and one usage event queued off the request path.
 */
@Injectable()
export class EmbeddingsService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly router: ProviderRouter,
    private readonly byok: ByokCredentialsService,
    private readonly client: OpenAiEmbeddingsClient,
    private readonly bedrock: BedrockEmbeddings,
    private readonly gemini: GeminiEmbeddings,
    private readonly vertex: VertexEmbeddings,
    private readonly accounting: GenerationAccounting,
    private readonly holds: SpendHolds,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    this.byokFeeRate = new Prisma.Decimal(env.BYOK_FEE_RATE);
  }

  private readonly byokFeeRate: Prisma.Decimal;

  create(request: EmbeddingsCreateRequest): Promise<EmbeddingsView> {
    return this.holds.around(request.principal, () => this.embed(request));
  }

  private async embed(request: EmbeddingsCreateRequest): Promise<EmbeddingsView> {
    const { principal, body } = request;
    assertMaySpend(principal);
    const modelId = String(body.model);
    // The workspace's own models first (as chat resolves them), then the catalog's.
    const { credentials, models: workspaceModels } = await this.byok.routingOf(principal.workspaceId);
    assertEmbeddingsModel(modelId, workspaceModels.get(modelId) ?? this.catalog.resolve(modelId));
    // No `models` fallback list for embeddings: vectors of two models are not interchangeable.
    const plan = this.router.plan({
      principal,
      body: { model: modelId, provider: body.provider },
      credentials,
      purpose: 'embeddings',
      workspaceModels,
    });
    await this.holds.reserve(principal, worstCaseEmbeddingsCharge(plan.attempts, body.input, this.byokFeeRate));
    const base = { endUserHash: hashEndUser(principal.workspaceId, body.user) };
    const clients = { bedrock: this.bedrock, gemini: this.gemini, vertex: this.vertex } as const;
    const { result, attempt, tracker } = await this.router.execute(plan, (current) => {
      const format = current.endpoint.provider.format;
      const client = format === 'bedrock' || format === 'gemini' || format === 'vertex' ? clients[format] : this.client;
      return client.create(current.endpoint, body, callContextFor(current, base));
    });
    const usage = embeddingsUsage(result, body.input);
    const id = newGenerationId();
    const charge = await this.accounting.settle({
      generationId: id,
      principal,
      attempt,
      tracker,
      usage,
      status: 'succeeded',
      content: () => embeddingsContent(body.input),
    });
    return buildEmbeddingsView({ id, modelId: attempt.modelId, provider: attempt.endpoint.provider.name, result, usage, charge });
  }
}

/** The provider's prompt-token count, or an estimate (about 4 characters a token) when it sent none. */
export function embeddingsUsage(result: UpstreamEmbeddings, input: unknown): NormalizedUsage {
  const reported = result.usage?.prompt_tokens;
  if (typeof reported === 'number' && Number.isInteger(reported) && reported >= 0) {
    return { promptTokens: reported, completionTokens: 0, cachedTokens: 0, reasoningTokens: 0, estimated: false };
  }
  const items = Array.isArray(input) ? input : [input];
  const estimate = items.reduce<number>(
    (sum, item) => sum + (typeof item === 'string' ? estimateTokens(item) : Array.isArray(item) ? item.length : 1),
    0,
  );
  return { promptTokens: estimate, completionTokens: 0, cachedTokens: 0, reasoningTokens: 0, estimated: true };
}
