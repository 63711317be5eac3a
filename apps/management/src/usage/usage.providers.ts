import type { Provider, Type } from '@nestjs/common';
import { JETSTREAM } from '@gw/contracts';
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
  { provide: USAGE_CONSUMER_OPTIONS, useValue: { durableName: JETSTREAM.consumers.managementUsage } },
  KeyWritesService,
  CreditsService,
  UsageRecorder,
  UsageConsumer,
  LastUsedService,
];
