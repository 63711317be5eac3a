import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, UseGuards } from '@nestjs/common';
import {
  BulkMembersDto,
  CreateWorkspaceDto,
  DeleteWorkspaceQueryDto,
  TotalPageQueryDto,
  UpdateWorkspaceDto,
  UpsertBudgetDto,
  type CallParams,
  type Principal,
  type WorkspaceOp,
  WorkspacesCall,
} from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { managementOnly } from '../auth/management-key-required.js';
import { StrictBody, StrictQuery } from '../input/dto-pipes.js';
import { Answers, Doc, Fails, KeyKinds, PathParam } from '../openapi/api-docs.js';

const REF = { type: 'string', maxLength: 64 };
const INTERVAL = { type: 'string', enum: ['daily', 'weekly', 'monthly', 'lifetime'] };
const USER = { type: 'string', format: 'uuid' };

/**
 * Workspaces, their members and budgets (issue 31 item 5), as @openrouter/sdk calls them
 * (`workspaces.*`), answered by management. `{id}` / `{workspace_ref}` is a workspace id or slug
 * among the key's user's workspaces; any other is a 404, whoever's it is.
 */
@Controller('v1/workspaces')
@KeyKinds('management')
@UseGuards(managementOnly())
@Fails({ 403: 'Your role in the workspace may not do this', 404: 'No such workspace among yours' })
export class WorkspacesController {
  constructor(private readonly rpc: RpcClient) {}

  private send(principal: Principal, op: WorkspaceOp, params: CallParams, body?: object): Promise<never> {
    return this.rpc.send(WorkspacesCall, { principal, op, params, ...(body ? { body: { ...body } } : {}) }) as Promise<never>;
  }

  @Get()
  @Doc("List the key's user's workspaces")
  @Answers(200, 'WorkspacePageAnswer', 'A page of workspaces, oldest first')
  list(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: TotalPageQueryDto) {
    return this.send(principal, 'list', { ...query });
  }

  @Post()
  @HttpCode(201)
  @Doc('Create a workspace (the key’s user owns it)')
  @Answers(201, 'WorkspaceAnswer', 'The workspace')
  @Fails({ 409: 'You already have a workspace with that slug' })
  async create(@CurrentPrincipal() principal: Principal, @Body(StrictBody) dto: CreateWorkspaceDto) {
    return { data: await this.send(principal, 'create', {}, dto) };
  }

  @Get(':id')
  @Doc('Get a workspace')
  @PathParam('id', REF, 'Workspace id or slug')
  @Answers(200, 'WorkspaceAnswer', 'The workspace')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') ref: string) {
    return { data: await this.send(principal, 'get', { ref }) };
  }

  @Patch(':id')
  @Doc('Update a workspace (owner or admin)')
  @PathParam('id', REF, 'Workspace id or slug')
  @Answers(200, 'WorkspaceAnswer', 'The workspace')
  @Fails({ 409: 'You already have a workspace with that slug' })
  async update(@CurrentPrincipal() principal: Principal, @Param('id') ref: string, @Body(StrictBody) dto: UpdateWorkspaceDto) {
    return { data: await this.send(principal, 'update', { ref }, dto) };
  }

  @Delete(':id')
  @Doc('Delete a workspace (owner), with its keys, presets, credentials and guardrails')
  @PathParam('id', REF, 'Workspace id or slug')
  @Answers(200, 'DeletedAnswer', 'Deleted')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') ref: string, @Query(StrictQuery) query: DeleteWorkspaceQueryDto) {
    return this.send(principal, 'delete', { ref, confirm_default_workspace_deletion: query.confirm_default_workspace_deletion });
  }

  @Get(':id/members')
  @Doc("List a workspace's members")
  @PathParam('id', REF, 'Workspace id or slug')
  @Answers(200, 'WorkspaceMemberPageAnswer', 'A page of members, oldest first')
  members(@CurrentPrincipal() principal: Principal, @Param('id') ref: string, @Query(StrictQuery) query: TotalPageQueryDto) {
    return this.send(principal, 'members.list', { ref, ...query });
  }

  @Post(':id/members/add')
  @HttpCode(200)
  @Doc('Add users to a workspace (owner or admin)')
  @PathParam('id', REF, 'Workspace id or slug')
  @Answers(200, 'MembersAddedAnswer', 'The members added (those already members are not)')
  addMembers(@CurrentPrincipal() principal: Principal, @Param('id') ref: string, @Body(StrictBody) dto: BulkMembersDto) {
    return this.send(principal, 'members.add', { ref }, dto);
  }

  @Post(':id/members/remove')
  @HttpCode(200)
  @Doc('Remove members from a workspace (owner or admin); their keys there are disabled')
  @PathParam('id', REF, 'Workspace id or slug')
  @Answers(200, 'MembersRemovedAnswer', 'How many were removed')
  removeMembers(@CurrentPrincipal() principal: Principal, @Param('id') ref: string, @Body(StrictBody) dto: BulkMembersDto) {
    return this.send(principal, 'members.remove', { ref }, dto);
  }

  @Get(':workspace_ref/budgets')
  @Doc("List a workspace's budgets")
  @PathParam('workspace_ref', REF, 'Workspace id or slug')
  @Answers(200, 'WorkspaceBudgetListAnswer', 'The budgets, with the current period spend')
  budgets(@CurrentPrincipal() principal: Principal, @Param('workspace_ref') ref: string) {
    return this.send(principal, 'budgets.list', { ref });
  }

  @Get(':workspace_ref/budgets/:interval')
  @Doc("Get a workspace's budget for an interval")
  @PathParam('workspace_ref', REF, 'Workspace id or slug')
  @PathParam('interval', INTERVAL, 'The reset interval')
  @Answers(200, 'WorkspaceBudgetAnswer', 'The budget')
  budget(@CurrentPrincipal() principal: Principal, @Param('workspace_ref') ref: string, @Param('interval') interval: string) {
    return this.send(principal, 'budgets.get', { ref, interval });
  }

  @Put(':workspace_ref/budgets/:interval')
  @Doc("Set a workspace's budget for an interval (owner or admin)")
  @PathParam('workspace_ref', REF, 'Workspace id or slug')
  @PathParam('interval', INTERVAL, 'The reset interval')
  @Answers(200, 'WorkspaceBudgetAnswer', 'The budget')
  setBudget(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace_ref') ref: string,
    @Param('interval') interval: string,
    @Body(StrictBody) dto: UpsertBudgetDto,
  ) {
    return this.send(principal, 'budgets.set', { ref, interval }, dto);
  }

  @Delete(':workspace_ref/budgets/:interval')
  @Doc("Delete a workspace's budget for an interval (owner or admin)")
  @PathParam('workspace_ref', REF, 'Workspace id or slug')
  @PathParam('interval', INTERVAL, 'The reset interval')
  @Answers(200, 'DeletedAnswer', 'Deleted')
  deleteBudget(@CurrentPrincipal() principal: Principal, @Param('workspace_ref') ref: string, @Param('interval') interval: string) {
    return this.send(principal, 'budgets.delete', { ref, interval });
  }

  @Get(':workspace_ref/members/:user_id/budgets')
  @Doc("List a member's budgets in a workspace")
  @PathParam('workspace_ref', REF, 'Workspace id or slug')
  @PathParam('user_id', USER, 'The member')
  @Answers(200, 'WorkspaceBudgetListAnswer', 'The budgets, with the current period spend')
  memberBudgets(@CurrentPrincipal() principal: Principal, @Param('workspace_ref') ref: string, @Param('user_id') userId: string) {
    return this.send(principal, 'member-budgets.list', { ref, user_id: userId });
  }

  @Put(':workspace_ref/members/:user_id/budgets/:interval')
  @Doc("Set a member's budget in a workspace (owner or admin): it caps all the member's keys there")
  @PathParam('workspace_ref', REF, 'Workspace id or slug')
  @PathParam('user_id', USER, 'The member')
  @PathParam('interval', INTERVAL, 'The reset interval')
  @Answers(200, 'WorkspaceBudgetAnswer', 'The budget')
  setMemberBudget(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace_ref') ref: string,
    @Param('user_id') userId: string,
    @Param('interval') interval: string,
    @Body(StrictBody) dto: UpsertBudgetDto,
  ) {
    return this.send(principal, 'member-budgets.set', { ref, user_id: userId, interval }, dto);
  }

  @Delete(':workspace_ref/members/:user_id/budgets/:interval')
  @Doc("Delete a member's budget (owner or admin)")
  @PathParam('workspace_ref', REF, 'Workspace id or slug')
  @PathParam('user_id', USER, 'The member')
  @PathParam('interval', INTERVAL, 'The reset interval')
  @Answers(200, 'DeletedAnswer', 'Deleted')
  deleteMemberBudget(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace_ref') ref: string,
    @Param('user_id') userId: string,
    @Param('interval') interval: string,
  ) {
    return this.send(principal, 'member-budgets.delete', { ref, user_id: userId, interval });
  }
}
