import { Global, Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { loggerParams } from '@gw/config';
import { NatsClientModule, natsAuthFromEnv, jetStreamPlacementFromEnv } from '@gw/messaging';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { ByokModule } from './byok/byok.module.js';
import { CreditsModule } from './credits/credits.module.js';
import { MANAGEMENT_ENV, type ManagementEnv } from './env.js';
import { HealthModule } from './health/health.module.js';
import { GuardrailsModule } from './guardrails/guardrails.module.js';
import { ConsoleSessionsModule } from './console/console-sessions.module.js';
import { IdentityModule } from './identity/identity.module.js';
import { KeysModule } from './keys/keys.module.js';
import { PresetsModule } from './presets/presets.module.js';
import { SpendModule } from './spend/spend.module.js';
import { UsageModule } from './usage/usage.module.js';
import { WorkspaceModelsModule } from './workspace-models/workspace-models.module.js';
import { WorkspacesModule } from './workspaces/workspaces.module.js';

/** The validated environment, visible to every feature module. */
@Global()
@Module({})
class ManagementEnvModule {
  static forRoot(env: ManagementEnv): DynamicModule {
    return { module: ManagementEnvModule, providers: [{ provide: MANAGEMENT_ENV, useValue: env }], exports: [MANAGEMENT_ENV] };
  }
}

@Module({})
export class AppModule {
  /** The environment comes in validated, so tests can start the service on their own database. */
  static forRoot(env: ManagementEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerParams('management', env.LOG_LEVEL)),
        ManagementEnvModule.forRoot(env),
        // Calls out (intern-signing: does an intern exist before a key is bound to it).
        NatsClientModule.forRoot({
          natsUrl: env.NATS_URL,
          name: 'management-client',
          auth: natsAuthFromEnv(env, 'management'),
          jetstream: jetStreamPlacementFromEnv(env),
          rpcTimeoutMs: env.RPC_TIMEOUT_MS,
        }),
        HealthModule,
        AuthModule,
        IdentityModule,
        ConsoleSessionsModule,
        KeysModule,
        CreditsModule,
        ByokModule,
        PresetsModule,
        UsageModule,
        SpendModule,
        WorkspacesModule,
        WorkspaceModelsModule,
        GuardrailsModule,
        AuditModule,
      ],
    };
  }
}
