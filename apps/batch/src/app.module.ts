import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { loggerParams } from '@gw/config';
import { NatsClientModule, natsAuthFromEnv, jetStreamPlacementFromEnv } from '@gw/messaging';
import { ChargePublisher } from './billing/charge-publisher.js';
import { CostGuard } from './billing/cost-guard.service.js';
import { SpendCheck } from './billing/spend-check.js';
import { BatchFinalizer } from './batches/batch-finalizer.js';
import { BatchStore } from './batches/batch-store.js';
import { BatchesController } from './batches/batches.controller.js';
import { BatchesService } from './batches/batches.service.js';
import { Clock, SystemClock } from './clock/clock.js';
import { BATCH_ENV, type BatchEnv } from './env.js';
import { FilesController } from './files/files.controller.js';
import { FilesService } from './files/files.service.js';
import { HealthController } from './health/health.controller.js';
import { NativeBatches } from './native/native-batches.js';
import { PrismaService } from './prisma/prisma.service.js';
import { BatchRunner } from './worker/batch-runner.service.js';
import { BatchSignals } from './worker/batch-signals.js';
import { BatchSweeper } from './worker/batch-sweeper.service.js';
import { BatchWakeEvents } from './worker/batch-wake-events.js';
import { LineClaims } from './worker/line-claims.js';
import { LineExecutor } from './worker/line-executor.js';

export interface BatchModuleOptions {
  /** Tests pass a ManualClock to move time without sleeping. */
  clock?: Clock;
}

/** The batch API, its worker and its sweeps. */
@Module({})
export class AppModule {
  static forRoot(env: BatchEnv, options: BatchModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerParams('batch', env.LOG_LEVEL)),
        // Calls out: inference (the lines), management (the balance of the cost guard).
        NatsClientModule.forRoot({
          natsUrl: env.NATS_URL,
          name: 'batch-client',
          auth: natsAuthFromEnv(env, 'batch'),
          jetstream: jetStreamPlacementFromEnv(env),
          rpcTimeoutMs: env.RPC_TIMEOUT_MS,
        }),
      ],
      controllers: [HealthController, BatchesController, FilesController],
      providers: [
        { provide: BATCH_ENV, useValue: env },
        { provide: Clock, useValue: options.clock ?? new SystemClock() },
        PrismaService,
        BatchStore,
        BatchFinalizer,
        BatchesService,
        FilesService,
        ChargePublisher,
        CostGuard,
        SpendCheck,
        NativeBatches,
        LineClaims,
        LineExecutor,
        BatchSignals,
        BatchWakeEvents,
        BatchRunner,
        BatchSweeper,
      ],
    };
  }
}
