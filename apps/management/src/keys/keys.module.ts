import { AuditWriterModule } from '../audit/audit-writer.module.js';
import { Module } from '@nestjs/common';
import { ManagementEventsModule } from '../messaging/management-events.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { KeyWritesService } from './key-writes.service.js';
import { KeysController } from './keys.controller.js';
import { KeysService } from './keys.service.js';

/** API keys: reads, and writes that announce `keys.changed` (intern keys asked of intern-signing). */
@Module({
  imports: [PrismaModule, AuditWriterModule, WorkspacesModule, ManagementEventsModule],
  controllers: [KeysController],
  providers: [KeysService, KeyWritesService],
})
export class KeysModule {}
