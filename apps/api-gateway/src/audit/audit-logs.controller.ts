import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { AuditLogList, AuditLogQueryDto, type AuditLogPageView, type Principal } from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { managementOnly } from '../auth/management-key-required.js';
import { StrictQuery } from '../input/dto-pipes.js';
import { Answers, Doc, Fails, KeyKinds } from '../openapi/api-docs.js';

/** `GET /v1/audit-logs`: a workspace's management changes, newest first, to its owners and admins. */
@Controller('v1/audit-logs')
@KeyKinds('management')
@UseGuards(managementOnly())
export class AuditLogsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Doc(
    'List audit log entries',
    'Filters: workspace_id (default the key’s), action, resource_type, resource_id, actor_user_id, since, until (UTC). ' +
      'Pages: limit (1-100, default 50) and cursor (the previous page’s next_cursor).',
  )
  @Answers(200, 'AuditLogPageAnswer', 'A page of entries, newest first')
  @Fails({ 403: 'Only owners and admins read the audit log', 404: 'No such workspace among yours' })
  list(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: AuditLogQueryDto): Promise<AuditLogPageView> {
    return this.rpc.send(AuditLogList, { principal, query: { ...query } });
  }
}
