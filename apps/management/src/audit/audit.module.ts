import { Module } from '@nestjs/common';
import { PrismaModule } from '../prisma/prisma.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { AuditLogController } from './audit-log.controller.js';
import { AuditLogReader } from './audit-log.reader.js';
import { AuditRetention } from './audit-retention.js';
import { CatalogAuditIngest } from './catalog-audit.ingest.js';

/**
 * `GET /v1/audit-logs` (and the operator's `/v1/admin/audit-logs`): reads what AuditWriter wrote and what
 * inference relayed from the catalog's versions; AuditRetention deletes what is past its retention.
 */
@Module({
  imports: [PrismaModule, WorkspacesModule],
  controllers: [AuditLogController],
  providers: [AuditLogReader, AuditRetention, CatalogAuditIngest],
})
export class AuditModule {}
