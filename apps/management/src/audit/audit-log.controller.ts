import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AuditLogList, AuditLogListRequest, type AuditLogPageView } from '@gw/contracts';
import { AuditLogReader } from './audit-log.reader.js';

@Controller()
export class AuditLogController {
  constructor(private readonly reader: AuditLogReader) {}

  @MessagePattern(AuditLogList.subject)
  list(@Payload() request: AuditLogListRequest): Promise<AuditLogPageView> {
    return this.reader.list(request.principal, request.query);
  }
}
