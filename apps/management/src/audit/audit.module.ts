import { Module } from '@nestjs/common';
import { PrismaModule } from '../prisma/prisma.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { AuditLogController } from './audit-log.controller.js';
import { AuditLogReader } from './audit-log.reader.js';
import { AuditRetention } from './audit-retention.js';

/** `GET /v1/audit-logs`: reads what AuditWriter wrote; AuditRetention deletes what is past its retention. */
@Module({
  imports: [PrismaModule, WorkspacesModule],
  controllers: [AuditLogController],
  providers: [AuditLogReader, AuditRetention],
})
export class AuditModule {}
