import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  CreateInternDto,
  DeleteInternDto,
  INTERN_LIST_DEFAULT,
  ListInternsQueryDto,
  UpdateInternDto,
  type DeleteInternView,
  type InternListView,
  type InternView,
  type Principal,
  InternsCreate,
  InternsDelete,
  InternsGet,
  InternsList,
  InternsUpdate,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { DtoPipe, StrictBodyOrEmpty } from '../input/dto-pipes.js';
import { InternIdParam } from './intern-id.js';
import { Answers, Doc, Fails, PathParam } from '../openapi/api-docs.js';

/** The intern routes' query errors carry `reason: invalid_request` (spec §7.2 style). */
const InternListQuery = new DtoPipe({ unknown: 'reject', reason: 'invalid_request' });

/** The interns resource in `@openrouter/sdk`'s shape (interns.list/create/get/update/delete), answered by intern-signing. */
@Controller('v1/interns')
export class InternsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Doc('List interns')
  @Answers(200, 'InternListAnswer', 'A page of interns')
  @Fails({ 404: 'No such workspace visible to the key' })
  async list(@CurrentPrincipal() principal: Principal, @Query(InternListQuery) query: ListInternsQueryDto): Promise<InternListView> {
    return this.rpc.send(InternsList, {
      principal,
      limit: query.limit ?? INTERN_LIST_DEFAULT,
      statuses: query.status,
      startingAfter: query.starting_after,
      workspaceId: query.workspace_id,
    });
  }

  @Post()
  @Doc('Create an intern')
  @Answers(201, 'InternAnswer', 'The intern')
  @Fails({ 403: 'The key may not create interns', 404: 'No such workspace visible to the key', 409: 'An intern of that name exists' })
  @HttpCode(201)
  async create(@CurrentPrincipal() principal: Principal, @Body(StrictBodyOrEmpty) dto: CreateInternDto): Promise<InternView> {
    if (dto.provision === true)
      throw unsupported(
        'provision: interns are not provisioned by this gateway; their daemons run on hosts their operators name (hostname)',
      );
    if (dto.vault_id !== undefined) throw unsupported('vault_id: vaults are not offered by this gateway');
    return this.rpc.send(InternsCreate, {
      principal,
      name: dto.name,
      description: dto.description,
      instructions: dto.instructions,
      model: dto.model,
      hostname: dto.hostname,
      workspaceId: dto.workspace_id,
    });
  }

  @Get(':internId')
  @Doc('Get an intern')
  @PathParam('internId', { type: 'string', format: 'uuid' }, 'The intern id; any other string is a 404 `not_found`')
  @Answers(200, 'InternAnswer', 'The intern')
  @Fails({ 404: 'No intern with that id is visible to the key' })
  get(@CurrentPrincipal() principal: Principal, @Param('internId', InternIdParam) internId: string): Promise<InternView> {
    return this.rpc.send(InternsGet, { principal, internId });
  }

  @Patch(':internId')
  @Doc('Update an intern')
  @PathParam('internId', { type: 'string', format: 'uuid' }, 'The intern id; any other string is a 404 `not_found`')
  @Answers(200, 'InternAnswer', 'The intern')
  @Fails({
    403: "An intern's own key cannot change interns",
    404: 'No intern with that id is visible to the key',
    409: 'An intern of that name exists',
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('internId', InternIdParam) id: string,
    @Body(StrictBodyOrEmpty) dto: UpdateInternDto,
  ): Promise<InternView> {
    return this.rpc.send(InternsUpdate, {
      principal,
      internId: id,
      name: dto.name,
      description: dto.description,
      instructions: dto.instructions,
      model: dto.model,
      hostname: dto.hostname,
    });
  }

  /** 202 `{deleting: true}` as the SDK expects; the teardown is already complete when it answers. */
  @Delete(':internId')
  @Doc('Delete an intern')
  @PathParam('internId', { type: 'string', format: 'uuid' }, 'The intern id; any other string is a 404 `not_found`')
  @Answers(202, 'InternDeletedAnswer', 'Deleted (the teardown is complete)')
  @Fails({ 403: "An intern's own key cannot delete interns", 404: 'No intern with that id is visible to the key' })
  @HttpCode(202)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('internId', InternIdParam) id: string,
    @Body(StrictBodyOrEmpty) _body: DeleteInternDto,
  ): Promise<DeleteInternView> {
    return this.rpc.send(InternsDelete, { principal, internId: id });
  }
}

function unsupported(what: string): GatewayError {
  return new GatewayError(400, `Unsupported: ${what}`, { metadata: { reason: 'unsupported_parameter', retryable: false } });
}
