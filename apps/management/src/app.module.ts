import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { loggerParams } from '@gw/config';
import { NatsClientModule, natsAuthFromEnv } from '@gw/messaging';
import { AuthController } from './auth/auth.controller.js';
import { AuthService } from './auth/auth.service.js';
import { ByokController } from './byok/byok.controller.js';
import { BYOK_PROVIDERS } from './byok/byok.providers.js';
import { MANAGEMENT_ENV, type ManagementEnv } from './env.js';
import { HealthController } from './health/health.controller.js';
import { IdentityController } from './identity/identity.controller.js';
import { IdentityService } from './identity/identity.service.js';
import { OidcClient } from './identity/oidc-client.js';
import { KeysController } from './keys/keys.controller.js';
import { KeysService } from './keys/keys.service.js';
import { MANAGEMENT_EVENTS_CONNECTION_PROVIDER, ManagementEventsPublisher } from './messaging/management-events.publisher.js';
import { PresetsController } from './presets/presets.controller.js';
import { PRESETS_PROVIDERS } from './presets/presets.providers.js';
import { PrismaService } from './prisma/prisma.service.js';
import { KEYS_USAGE_CONTROLLERS, KEYS_USAGE_PROVIDERS } from './usage/usage.providers.js';
import { WorkspaceAccessService } from './workspaces/workspace-access.service.js';

@Module({})
export class AppModule {
  /** The environment comes in validated, so tests can start the service on their own database. */
  static forRoot(env: ManagementEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerParams('management', env.LOG_LEVEL)),
        // Calls out (intern-signing: does an intern exist before a key is bound to it).
        NatsClientModule.forRoot({ natsUrl: env.NATS_URL, name: 'management-client', auth: natsAuthFromEnv(env, 'management'), rpcTimeoutMs: env.RPC_TIMEOUT_MS }),
      ],
      controllers: [HealthController, AuthController, IdentityController, KeysController, ByokController, PresetsController, ...KEYS_USAGE_CONTROLLERS],
      providers: [
        { provide: MANAGEMENT_ENV, useValue: env },
        PrismaService,
        MANAGEMENT_EVENTS_CONNECTION_PROVIDER,
        ManagementEventsPublisher,
        WorkspaceAccessService,
        KeysService,
        AuthService,
        OidcClient,
        IdentityService,
        ...BYOK_PROVIDERS,
        ...PRESETS_PROVIDERS,
        ...KEYS_USAGE_PROVIDERS,
      ],
    };
  }
}
