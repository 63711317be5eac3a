import { UsagePrincipalVerifier } from '@gw/messaging';
import { Module } from '@nestjs/common';
import { JETSTREAM } from '@gw/contracts';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';
import { ManagementEventsModule } from '../messaging/management-events.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { KeysUsedController } from './keys-used.controller.js';
import { LastUsedService } from './last-used.service.js';
import { USAGE_CONSUMER_OPTIONS, UsageConsumer } from './usage-consumer.js';
import { UsageCounter } from './usage-counter.js';

/** Usage events counted exactly once from JetStream (issue 3), and keys' last-used times. */
@Module({
  imports: [PrismaModule, ManagementEventsModule],
  controllers: [KeysUsedController],
  providers: [
    {
      provide: USAGE_CONSUMER_OPTIONS,
      inject: [MANAGEMENT_ENV],
      useFactory: (env: ManagementEnv) => ({
        durableName: JETSTREAM.consumers.managementUsage,
        maxDeliveries: env.CONSUMER_MAX_DELIVERIES,
        // Nothing is billed without the gateway's proof for that workspace and request.
        principals: UsagePrincipalVerifier.fromEnv(env),
      }),
    },
    { provide: UsageCounter, inject: [PrismaService], useFactory: (prisma: PrismaService) => new UsageCounter(prisma.pool) },
    UsageConsumer,
    LastUsedService,
  ],
  exports: [UsageConsumer],
})
export class UsageModule {}
