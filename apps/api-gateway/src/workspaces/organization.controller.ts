import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { TotalPageQueryDto, type Principal, WorkspacesCall } from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { managementOnly } from '../auth/management-key-required.js';
import { StrictQuery } from '../input/dto-pipes.js';
import { Answers, Doc, KeyKinds } from '../openapi/api-docs.js';

/** `organization.listMembers`: everyone who shares a workspace with the key's user. */
@Controller('v1/organization')
@KeyKinds('management')
@UseGuards(managementOnly())
export class OrganizationController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('members')
  @Doc('List the organization’s members (everyone sharing a workspace with you)')
  @Answers(200, 'OrganizationMemberPageAnswer', 'A page of members')
  members(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: TotalPageQueryDto) {
    return this.rpc.send(WorkspacesCall, { principal, op: 'organization.members', params: { ...query } });
  }
}
