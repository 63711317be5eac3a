import type { Provider, Type } from '@nestjs/common';
import { JETSTREAM } from '@gw/contracts';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';
import { CreditsController } from '../credits/credits.controller.js';
import { CreditsService } from '../credits/credits.service.js';
import { KeyWritesService } from '../keys/key-writes.service.js';
import { KeysUsedController } from './keys-used.controller.js';
import { LastUsedService } from './last-used.service.js';
import { USAGE_CONSUMER_OPTIONS, UsageConsumer } from './usage-consumer.js';
import { UsageRecorder } from './usage-recorder.js';

/** What AppModule registers for key writes, usage counting and credits (issue 3). */
export const KEYS_USAGE_CONTROLLERS: Type[] = [CreditsController, KeysUsedController];

export const KEYS_USAGE_PROVIDERS: Provider[] = [
  {
    provide: USAGE_CONSUMER_OPTIONS,
    inject: [MANAGEMENT_ENV],
    useFactory: (env: ManagementEnv) => ({ durableName: JETSTREAM.consumers.managementUsage, maxDeliveries: env.CONSUMER_MAX_DELIVERIES }),
  },
  KeyWritesService,
  CreditsService,
  UsageRecorder,
  UsageConsumer,
  LastUsedService,
];
