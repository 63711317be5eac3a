import type { Provider } from '@nestjs/common';
import { ResilientNatsConnection } from '@gw/messaging';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';
import { BYOK_EVENTS_CONNECTION, ByokEventsPublisher } from './byok-events.publisher.js';
import { ByokService } from './byok.service.js';
import { KeyRing } from './key-ring.js';

/** What AppModule registers for BYOK (it shares AppModule's PrismaService and WorkspaceAccessService). */
export const BYOK_PROVIDERS: Provider[] = [
  { provide: KeyRing, inject: [MANAGEMENT_ENV], useFactory: (env: ManagementEnv) => KeyRing.fromEnv(env.BYOK_KEKS) },
  {
    provide: BYOK_EVENTS_CONNECTION,
    inject: [MANAGEMENT_ENV],
    useFactory: (env: ManagementEnv) => ResilientNatsConnection.open({ servers: env.NATS_URL, name: 'management-byok-events' }),
  },
  ByokEventsPublisher,
  ByokService,
];
