import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import {
  CreateGuardrailDto,
  GuardrailKeysDto,
  GuardrailMembersDto,
  ListGuardrailsQueryDto,
  TotalPageQueryDto,
  UpdateGuardrailDto,
  type CallParams,
  type GuardrailOp,
  type Principal,
  GuardrailsCall,
} from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { managementOnly } from '../auth/management-key-required.js';
import { StrictBody, StrictQuery } from '../input/dto-pipes.js';
import { Answers, Doc, Fails, KeyKinds, PathParam } from '../openapi/api-docs.js';

const ID = { type: 'string', format: 'uuid' };

/**
 * Guardrails (issue 31 item 6) as @openrouter/sdk calls them (`guardrails.*`), answered by
 * management: what keys and members may route to, enforced by inference at routing. A guardrail
 * of a workspace the key's user is not in is a 404.
 */
@Controller('v1/guardrails')
@KeyKinds('management')
@UseGuards(managementOnly())
@Fails({ 403: 'Your role in the workspace may not do this', 404: 'No such guardrail, key or member among yours' })
export class GuardrailsController {
  constructor(private readonly rpc: RpcClient) {}

  private send(principal: Principal, op: GuardrailOp, params: CallParams, body?: object): Promise<never> {
    return this.rpc.send(GuardrailsCall, { principal, op, params, ...(body ? { body: { ...body } } : {}) }) as Promise<never>;
  }

  @Get()
  @Doc('List the guardrails of your workspaces (or of `workspace_id`)')
  @Answers(200, 'GuardrailPageAnswer', 'A page of guardrails, oldest first')
  list(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: ListGuardrailsQueryDto) {
    return this.send(principal, 'list', { ...query });
  }

  @Post()
  @HttpCode(201)
  @Doc(
    'Create a guardrail (owner or admin of its workspace)',
    'Content filters, ZDR, training and data-region fields are refused unless null.',
  )
  @Answers(201, 'GuardrailAnswer', 'The guardrail')
  async create(@CurrentPrincipal() principal: Principal, @Body(StrictBody) dto: CreateGuardrailDto) {
    return { data: await this.send(principal, 'create', {}, dto) };
  }

  @Get('assignments/keys')
  @Doc('List every key assignment of your workspaces’ guardrails')
  @Answers(200, 'GuardrailKeyAssignmentPageAnswer', 'A page of key assignments')
  allKeyAssignments(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: TotalPageQueryDto) {
    return this.send(principal, 'assignments.keys', { ...query });
  }

  @Get('assignments/members')
  @Doc('List every member assignment of your workspaces’ guardrails')
  @Answers(200, 'GuardrailMemberAssignmentPageAnswer', 'A page of member assignments')
  allMemberAssignments(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: TotalPageQueryDto) {
    return this.send(principal, 'assignments.members', { ...query });
  }

  @Get(':id')
  @Doc('Get a guardrail')
  @PathParam('id', ID, 'The guardrail')
  @Answers(200, 'GuardrailAnswer', 'The guardrail')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return { data: await this.send(principal, 'get', { id }) };
  }

  @Patch(':id')
  @Doc('Update a guardrail (owner or admin)')
  @PathParam('id', ID, 'The guardrail')
  @Answers(200, 'GuardrailAnswer', 'The guardrail')
  async update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body(StrictBody) dto: UpdateGuardrailDto) {
    return { data: await this.send(principal, 'update', { id }, dto) };
  }

  @Delete(':id')
  @Doc('Delete a guardrail (owner or admin); a workspace’s default guardrail stays')
  @PathParam('id', ID, 'The guardrail')
  @Answers(200, 'DeletedAnswer', 'Deleted')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.send(principal, 'delete', { id });
  }

  @Get(':id/assignments/keys')
  @Doc('List the keys a guardrail is assigned to')
  @PathParam('id', ID, 'The guardrail')
  @Answers(200, 'GuardrailKeyAssignmentPageAnswer', 'A page of key assignments')
  keyAssignments(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query(StrictQuery) query: TotalPageQueryDto) {
    return this.send(principal, 'keys.list', { id, ...query });
  }

  @Post(':id/assignments/keys')
  @HttpCode(200)
  @Doc('Assign a guardrail to keys of its workspace')
  @PathParam('id', ID, 'The guardrail')
  @Answers(200, 'AssignedAnswer', 'How many were newly assigned')
  assignKeys(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body(StrictBody) dto: GuardrailKeysDto) {
    return this.send(principal, 'keys.assign', { id }, dto);
  }

  @Post(':id/assignments/keys/remove')
  @HttpCode(200)
  @Doc('Unassign a guardrail from keys')
  @PathParam('id', ID, 'The guardrail')
  @Answers(200, 'UnassignedAnswer', 'How many were unassigned')
  unassignKeys(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body(StrictBody) dto: GuardrailKeysDto) {
    return this.send(principal, 'keys.unassign', { id }, dto);
  }

  @Get(':id/assignments/members')
  @Doc('List the members a guardrail is assigned to')
  @PathParam('id', ID, 'The guardrail')
  @Answers(200, 'GuardrailMemberAssignmentPageAnswer', 'A page of member assignments')
  memberAssignments(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query(StrictQuery) query: TotalPageQueryDto) {
    return this.send(principal, 'members.list', { id, ...query });
  }

  @Post(':id/assignments/members')
  @HttpCode(200)
  @Doc('Assign a guardrail to members of its workspace (all their keys there)')
  @PathParam('id', ID, 'The guardrail')
  @Answers(200, 'AssignedAnswer', 'How many were newly assigned')
  assignMembers(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body(StrictBody) dto: GuardrailMembersDto) {
    return this.send(principal, 'members.assign', { id }, dto);
  }

  @Post(':id/assignments/members/remove')
  @HttpCode(200)
  @Doc('Unassign a guardrail from members')
  @PathParam('id', ID, 'The guardrail')
  @Answers(200, 'UnassignedAnswer', 'How many were unassigned')
  unassignMembers(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body(StrictBody) dto: GuardrailMembersDto) {
    return this.send(principal, 'members.unassign', { id }, dto);
  }
}
