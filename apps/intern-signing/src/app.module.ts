import { Global, Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { loggerParams } from '@gw/config';
import { NatsClientModule, natsAuthFromEnv, jetStreamPlacementFromEnv } from '@gw/messaging';
import { RateLimitModule } from '@gw/rate-limit';
import { INTERN_SIGNING_ENV, type InternSigningEnv } from './env.js';
import { HealthController } from './health/health.controller.js';
import { InternsModule } from './interns/interns.module.js';
import { PrismaModule } from './prisma/prisma.module.js';
import { SigningModule } from './signing/signing.module.js';

/** The validated environment, visible to every feature module. */
@Global()
@Module({})
class InternSigningEnvModule {
  static forRoot(env: InternSigningEnv): DynamicModule {
    return { module: InternSigningEnvModule, providers: [{ provide: INTERN_SIGNING_ENV, useValue: env }], exports: [INTERN_SIGNING_ENV] };
  }
}

@Module({})
export class AppModule {
  static forRoot(env: InternSigningEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerParams('intern-signing', env.LOG_LEVEL)),
        InternSigningEnvModule.forRoot(env),
        NatsClientModule.forRoot({
          natsUrl: env.NATS_URL,
          name: 'intern-signing-client',
          auth: natsAuthFromEnv(env, 'intern-signing'),
          jetstream: jetStreamPlacementFromEnv(env),
          rpcTimeoutMs: env.RPC_TIMEOUT_MS,
        }),
        RateLimitModule.forRoot({ redisUrl: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX }),
        PrismaModule,
        InternsModule,
        SigningModule,
      ],
      controllers: [HealthController],
    };
  }
}
