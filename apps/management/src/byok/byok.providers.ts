import type { Provider } from '@nestjs/common';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';
import { ByokService } from './byok.service.js';
import { KeyRing } from './key-ring.js';

/** What AppModule registers for BYOK (it shares AppModule's PrismaService and WorkspaceAccessService). */
export const BYOK_PROVIDERS: Provider[] = [
  { provide: KeyRing, inject: [MANAGEMENT_ENV], useFactory: (env: ManagementEnv) => KeyRing.fromEnv(env.BYOK_KEKS) },
  ByokService,
];
