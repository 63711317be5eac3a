import { Module } from '@nestjs/common';
import { AuditWriterModule } from '../audit/audit-writer.module.js';
import { ManagementEventsModule } from '../messaging/management-events.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { WorkspaceModelsController } from './workspace-models.controller.js';
import { WorkspaceModelsService } from './workspace-models.service.js';

/** A workspace's own models; BYOK's resolve sends them to inference with the credentials. */
@Module({
  imports: [PrismaModule, AuditWriterModule, WorkspacesModule, ManagementEventsModule],
  controllers: [WorkspaceModelsController],
  providers: [WorkspaceModelsService],
  exports: [WorkspaceModelsService],
})
export class WorkspaceModelsModule {}
