import { Controller, Get, Query, UseGuards, Req } from '@nestjs/common';
import { AdminAuditLogList, AdminAuditLogQueryDto, type AuditLogPageView } from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { Public } from '../auth/public.decorator.js';
import { StrictQuery } from '../input/dto-pipes.js';
import { Answers, Doc } from '../openapi/api-docs.js';
import { OperatorKeyGuard, type OperatorRequest } from './operator-key.guard.js';

/**
 * `GET /v1/admin/audit-logs`: the operator reads every audit row, the catalog's changes (no
 * workspace: each catalog version's created, updated and deleted providers and models) and every
 * workspace's. Workspace keys are 403, as on the whole admin API.
 */
@Controller('v1/admin/audit-logs')
@Public()
@UseGuards(OperatorKeyGuard)
export class AdminAuditLogsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Doc(
    'List every audit log entry (operator)',
    'Filters: workspace_id (a workspace, or `none`: the catalog’s rows), action, resource_type, resource_id, actor_user_id, ' +
      'since, until (UTC). Pages: limit (1-100, default 50) and cursor (the previous page’s next_cursor).',
  )
  @Answers(200, 'AuditLogPageAnswer', 'A page of entries, newest first')
  list(@Req() request: OperatorRequest, @Query(StrictQuery) query: AdminAuditLogQueryDto): Promise<AuditLogPageView> {
    return this.rpc.send(AdminAuditLogList, { operator: request.operator!, query: { ...query } });
  }
}
