import { Module, type DynamicModule } from '@nestjs/common';
import { IdempotentRequests } from './idempotency/idempotent-requests.service.js';
import { LoggerModule } from 'nestjs-pino';
import { loggerParams } from '@gw/config';
import { NatsClientModule, natsAuthFromEnv, jetStreamPlacementFromEnv } from '@gw/messaging';
import { NativeBatchesController } from './batches-native/native-batches.controller.js';
import { NativeBatchesService } from './batches-native/native-batches.service.js';
import { CatalogService } from './catalog/catalog.service.js';
import { CatalogAdmin } from './catalog/catalog-admin.service.js';
import { CatalogAuditRelay } from './catalog/catalog-audit-relay.js';
import { CatalogAdminController } from './catalog/catalog-admin.controller.js';
import { CatalogSync } from './catalog/catalog-sync.service.js';
import { CatalogVersionsStore } from './catalog/catalog-versions.store.js';
import { ChatController } from './shared-pipeline/chat.controller.js';
import { ChatStreamController } from './shared-pipeline/chat-stream.controller.js';
import { ChatStreamService } from './shared-pipeline/chat-stream.service.js';
import { CallCancellations } from './shared-pipeline/call-cancellations.js';
import { ServedStreams } from './shared-pipeline/served-stream.js';
import { ChatPreparation } from './shared-pipeline/chat-preparation.service.js';
import { SpendHolds } from './billing/spend-holds.service.js';
import { ChatService } from './shared-pipeline/chat.service.js';
import { MessagesController } from './messages/messages.controller.js';
import { MessagesService } from './messages/messages.service.js';
import { MessagesStreamService } from './messages/messages-stream.service.js';
import { MessagesCountTokensService } from './messages/messages-count-tokens.service.js';
import { ModelCalls } from './shared-pipeline/model-calls.service.js';
import { EmbeddingsController } from './embeddings/embeddings.controller.js';
import { EmbeddingsService } from './embeddings/embeddings.service.js';
import { OpenAiEmbeddingsClient } from './embeddings/openai-embeddings.client.js';
import { INFERENCE_ENV, type InferenceEnv } from './env.js';
import { HealthController } from './health/health.controller.js';
import { AnalyticsController } from './analytics/analytics.controller.js';
import { ContentController } from './content/content.controller.js';
import { ContentLog } from './content/content-log.service.js';
import { AnalyticsService } from './analytics/analytics.service.js';
import { GenerationsConsumer } from './generations/generations-consumer.js';
import { RequestFailuresConsumer } from './request-failures/request-failures-consumer.js';
import { GenerationPartitions } from './generations/generation-partitions.service.js';
import { GenerationLister } from './generations/generation-list.service.js';
import { GenerationReader } from './generations/generation-reader.service.js';
import { GenerationsController } from './generations/generations.controller.js';
import { ByokTestController } from './byok-test/byok-test.controller.js';
import { ModelsController } from './models/models.controller.js';
import { PrismaService } from './prisma/prisma.service.js';
import { AdapterRegistry } from './providers/adapter-registry.js';
import { GenerateContentStreamService } from './generate-content/generate-content-stream.service.js';
import { GenerateContentController } from './generate-content/generate-content.controller.js';
import { GenerateContentService } from './generate-content/generate-content.service.js';
import { GeminiAdapter, VertexAdapter } from './providers/gemini/gemini.adapter.js';
import { GeminiEmbeddings } from './providers/gemini/gemini-embeddings.js';
import { GoogleAccessTokens } from './providers/gemini/google-access-tokens.js';
import { EntraAccessTokens } from './providers/azure/entra-access-tokens.js';
import { VertexEmbeddings } from './providers/gemini/vertex-embeddings.js';
import { AnthropicAdapter } from './providers/anthropic/anthropic.adapter.js';
import { AzureOpenAiAdapter } from './providers/azure/azure.adapter.js';
import { BedrockAdapter } from './providers/bedrock/bedrock.adapter.js';
import { BedrockClients } from './providers/bedrock/bedrock-clients.js';
import { BedrockEmbeddings } from './providers/bedrock/bedrock-embeddings.js';
import { OpenAiAdapter } from './providers/openai/openai.adapter.js';
import { OpenAiResponsesAdapter } from './providers/openai-responses/openai-responses.adapter.js';
import { ResponsesController } from './responses/responses.controller.js';
import { ResponsesPreparation } from './responses/responses-preparation.js';
import { ResponsesStreamService } from './responses/responses-stream.service.js';
import { ResponsesService } from './responses/responses.service.js';
import { ServerToolRunner } from './server-tools/server-tool-runner.service.js';
import { PluginPipeline } from './plugins/plugin-pipeline.service.js';
import { ByokCredentialsService } from './resolution/byok-credentials.service.js';
import { PresetsService } from './resolution/presets.service.js';
import { EndpointCooldowns } from './routing/endpoint-cooldowns.service.js';
import { ProviderRouter } from './routing/provider-router.service.js';
import { UpstreamClient } from './upstream/upstream-client.js';
import { GenerationAccounting } from './usage/generation-accounting.service.js';
import { GenerationUsagePublisher } from './usage/generation-usage-publisher.service.js';
import { ResponseCache } from './response-cache/response-cache.service.js';
import { ResponseCacheCaptures } from './response-cache/cache-captures.js';

@Module({})
export class AppModule {
  static forRoot(env: InferenceEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerParams('inference', env.LOG_LEVEL)),
        NatsClientModule.forRoot({
          natsUrl: env.NATS_URL,
          name: 'inference-client',
          auth: natsAuthFromEnv(env, 'inference'),
          jetstream: jetStreamPlacementFromEnv(env),
          rpcTimeoutMs: env.RPC_TIMEOUT_MS,
          livenessTimeoutMs: env.RPC_LIVENESS_TIMEOUT_MS,
        }),
      ],
      controllers: [
        HealthController,
        ChatController,
        ChatStreamController,
        MessagesController,
        GenerateContentController,
        ResponsesController,
        ModelsController,
        ByokTestController,
        GenerationsController,
        CatalogAdminController,
        AnalyticsController,
        ContentController,
        EmbeddingsController,
        NativeBatchesController,
      ],
      providers: [
        { provide: INFERENCE_ENV, useValue: env },
        PrismaService,
        CatalogService,
        CatalogVersionsStore,
        CatalogSync,
        CatalogAdmin,
        CatalogAuditRelay,
        UpstreamClient,
        ResponseCache,
        ResponseCacheCaptures,
        OpenAiAdapter,
        AnthropicAdapter,
        OpenAiResponsesAdapter,
        BedrockClients,
        BedrockAdapter,
        BedrockEmbeddings,
        AzureOpenAiAdapter,
        EntraAccessTokens,
        GeminiAdapter,
        VertexAdapter,
        GoogleAccessTokens,
        GeminiEmbeddings,
        VertexEmbeddings,
        OpenAiEmbeddingsClient,
        EmbeddingsService,
        NativeBatchesService,
        AdapterRegistry,
        ChatPreparation,
        ChatService,
        ServerToolRunner,
        PluginPipeline,
        MessagesService,
        MessagesStreamService,
        MessagesCountTokensService,
        GenerateContentService,
        GenerateContentStreamService,
        ModelCalls,
        ResponsesPreparation,
        ResponsesService,
        ResponsesStreamService,
        EndpointCooldowns,
        ProviderRouter,
        PresetsService,
        ByokCredentialsService,
        GenerationUsagePublisher,
        GenerationAccounting,
        SpendHolds,
        GenerationsConsumer,
        RequestFailuresConsumer,
        GenerationPartitions,
        GenerationReader,
        GenerationLister,
        AnalyticsService,
        ContentLog,
        ChatStreamService,
        CallCancellations,
        ServedStreams,
        IdempotentRequests,
      ],
    };
  }
}
