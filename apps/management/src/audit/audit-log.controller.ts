import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AdminAuditLogList,
  AdminAuditLogListRequest,
  AuditLogList,
  AuditLogListRequest,
  CatalogAuditAppend,
  CatalogAuditAppendRequest,
  type AuditLogPageView,
  type CatalogAuditAppendReply,
} from '@gw/contracts';
import { AuditLogReader } from './audit-log.reader.js';
import { CatalogAuditIngest } from './catalog-audit.ingest.js';

@Controller()
export class AuditLogController {
  constructor(
    private readonly reader: AuditLogReader,
    private readonly catalogAudit: CatalogAuditIngest,
  ) {}

  @MessagePattern(AuditLogList.subject)
  list(@Payload() request: AuditLogListRequest): Promise<AuditLogPageView> {
    return this.reader.list(request.principal, request.query);
  }

  @MessagePattern(AdminAuditLogList.subject)
  listAll(@Payload() request: AdminAuditLogListRequest): Promise<AuditLogPageView> {
    return this.reader.listAll(request.query);
  }

  @MessagePattern(CatalogAuditAppend.subject)
  appendCatalog(@Payload() request: CatalogAuditAppendRequest): Promise<CatalogAuditAppendReply> {
    return this.catalogAudit.append(request.records);
  }
}
