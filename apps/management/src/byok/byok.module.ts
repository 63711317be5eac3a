import { AuditWriterModule } from '../audit/audit-writer.module.js';
import { Module } from '@nestjs/common';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';
import { ManagementEventsModule } from '../messaging/management-events.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { WorkspaceModelsModule } from '../workspace-models/workspace-models.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { ByokController } from './byok.controller.js';
import { ByokService } from './byok.service.js';
import { KeyRing } from '@gw/config';

/** Bring-your-own-key credentials, envelope-encrypted under the configured KEKs. */
@Module({
  imports: [PrismaModule, AuditWriterModule, WorkspacesModule, ManagementEventsModule, WorkspaceModelsModule],
  controllers: [ByokController],
  providers: [
    { provide: KeyRing, inject: [MANAGEMENT_ENV], useFactory: (env: ManagementEnv) => KeyRing.fromEnv(env.BYOK_KEKS) },
    ByokService,
  ],
})
export class ByokModule {}
