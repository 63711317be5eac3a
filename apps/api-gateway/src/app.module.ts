import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { loggerParams } from '@gw/config';
import { NatsClientModule, PrincipalSigner, ReplicaLifecycle, natsAuthFromEnv, jetStreamPlacementFromEnv } from '@gw/messaging';
import { RateLimitModule } from '@gw/rate-limit';
import { ApiKeyGuard } from './auth/api-key.guard.js';
import { AuthCacheService } from './auth/auth-cache.service.js';
import { KeyUsageTracker } from './auth/key-usage.tracker.js';
import { BatchesController } from './batches/batches.controller.js';
import { FilesController } from './files/files.controller.js';
import { BatchRateLimitGuard } from './batches/batch-rate-limit.guard.js';
import { CreditsController } from './credits/credits.controller.js';
import { AnalyticsController } from './analytics/analytics.controller.js';
import { ContentLoggingController } from './generations/content-logging.controller.js';
import { GenerationsController } from './generations/generations.controller.js';
import { ChatController } from './chat/chat.controller.js';
import { InferenceStreamRelay } from './chat/inference-stream.relay.js';
import { CancellableInferenceCalls, InferenceCallCanceller } from './chat/inference-calls.js';
import { ResponseCacheHits } from './response-cache/cache-hits.service.js';
import { RequestFailures } from './request-failures/request-failures.service.js';
import { EmbeddingsController } from './embeddings/embeddings.controller.js';
import { GATEWAY_ENV, type GatewayEnv } from './env.js';
import { AllExceptionsFilter } from './errors/all-exceptions.filter.js';
import { HealthController } from './health/health.controller.js';
import { IdentityController } from './identity/identity.controller.js';
import { ByokController } from './byok/byok.controller.js';
import { AdminAuditLogsController } from './admin/admin-audit-logs.controller.js';
import { AdminCatalogController } from './admin/admin-catalog.controller.js';
import { OperatorKeyGuard } from './admin/operator-key.guard.js';
import { OperatorKeys } from './admin/operator-keys.js';
import { KeysController } from './keys/keys.controller.js';
import { AuditLogsController } from './audit/audit-logs.controller.js';
import { GuardrailsController } from './guardrails/guardrails.controller.js';
import { OrganizationController } from './workspaces/organization.controller.js';
import { WorkspacesController } from './workspaces/workspaces.controller.js';
import { WorkspaceModelsController } from './workspace-models/workspace-models.controller.js';
import { GenerateContentController } from './gemini/generate-content.controller.js';
import { MessagesController } from './messages/messages.controller.js';
import { ModelsController } from './models/models.controller.js';
import { PresetsController } from './presets/presets.controller.js';
import { DaemonSignController } from './interns/daemon-sign.controller.js';
import { InternsController } from './interns/interns.controller.js';
import { ResponsesController } from './responses/responses.controller.js';
import { KeyLimitsGuard } from './limits/key-limits.guard.js';
import { OpenApiController, OpenApiDocumentHolder } from './openapi/openapi.controller.js';
import { StreamBufferBudget } from './limits/stream-buffer-budget.js';

@Module({})
export class AppModule {
  static forRoot(env: GatewayEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerParams('api-gateway', env.LOG_LEVEL)),
        NatsClientModule.forRoot({
          natsUrl: env.NATS_URL,
          name: 'api-gateway',
          auth: natsAuthFromEnv(env, 'api-gateway'),
          jetstream: jetStreamPlacementFromEnv(env),
          rpcTimeoutMs: env.RPC_TIMEOUT_MS,
          livenessTimeoutMs: env.RPC_LIVENESS_TIMEOUT_MS,
          reconnectWaitMs: env.NATS_RECONNECT_WAIT_MS,
          principalSigner: PrincipalSigner.fromEnv(env),
        }),
        RateLimitModule.forRoot({ redisUrl: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX }),
      ],
      controllers: [
        HealthController,
        KeysController,
        ByokController,
        WorkspaceModelsController,
        ChatController,
        MessagesController,
        GenerateContentController,
        ResponsesController,
        ModelsController,
        PresetsController,
        CreditsController,
        GenerationsController,
        AnalyticsController,
        ContentLoggingController,
        EmbeddingsController,
        InternsController,
        DaemonSignController,
        IdentityController,
        BatchesController,
        FilesController,
        WorkspacesController,
        OrganizationController,
        GuardrailsController,
        AuditLogsController,
        OpenApiController,
        AdminCatalogController,
        AdminAuditLogsController,
      ],
      providers: [
        { provide: GATEWAY_ENV, useValue: env },
        { provide: ReplicaLifecycle, useValue: new ReplicaLifecycle() },
        AuthCacheService,
        { provide: OperatorKeys, useValue: new OperatorKeys(env.OPERATOR_API_KEYS) },
        OperatorKeyGuard,
        KeyUsageTracker,
        InferenceStreamRelay,
        InferenceCallCanceller,
        CancellableInferenceCalls,
        ResponseCacheHits,
        RequestFailures,
        OpenApiDocumentHolder,
        BatchRateLimitGuard,
        { provide: StreamBufferBudget, useValue: new StreamBufferBudget(env.GATEWAY_MAX_BUFFERED_BYTES) },
        // Guards run in this order: the key first, then its limits.
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: KeyLimitsGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }
}
