import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { loggerParams } from '@gw/config';
import { INTERN_SIGNING_ENV, type InternSigningEnv } from './env.js';
import { HealthController } from './health/health.controller.js';
import { PrismaService } from './prisma/prisma.service.js';

/** Skeleton until its own issue: health and the database, no endpoints yet. */
@Module({})
export class AppModule {
  static forRoot(env: InternSigningEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [LoggerModule.forRoot(loggerParams('intern-signing', env.LOG_LEVEL))],
      controllers: [HealthController],
      providers: [{ provide: INTERN_SIGNING_ENV, useValue: env }, PrismaService],
    };
  }
}
