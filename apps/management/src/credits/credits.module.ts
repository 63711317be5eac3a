import { AuditWriterModule } from '../audit/audit-writer.module.js';
import { Module } from '@nestjs/common';
import { ManagementEventsModule } from '../messaging/management-events.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { CreditsController } from './credits.controller.js';
import { CreditsService } from './credits.service.js';

/** A workspace's credits: balance and top-ups. */
@Module({
  imports: [PrismaModule, AuditWriterModule, WorkspacesModule, ManagementEventsModule],
  controllers: [CreditsController],
  providers: [CreditsService],
})
export class CreditsModule {}
