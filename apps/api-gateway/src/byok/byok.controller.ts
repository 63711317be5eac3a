import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards, type PipeTransform } from '@nestjs/common';
import {
  BYOK_PAGE_SIZE,
  CreateByokCredentialDto,
  ListByokQueryDto,
  UpdateByokCredentialDto,
  type ByokCredentialPage,
  type ByokCredentialView,
  type ByokTestView,
  type DataEnvelope,
  type DeletedReply,
  type Principal,
  ByokCreate,
  ByokDelete,
  ByokGet,
  ByokList,
  ByokTest,
  ByokUpdate,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { ManagementKeyGuard } from '../auth/management-key.guard.js';
import { StrictBody, StrictQuery } from '../input/dto-pipes.js';
import { Answers, Doc, Fails, KeyKinds, PathParam } from '../openapi/api-docs.js';

/** The upstream call's own limit is 10 s; this leaves room for resolving the credential. */
const BYOK_TEST_RPC_TIMEOUT_MS = 15_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `{id}`: a string that cannot be a credential id names none, 404 (the status the spec lists for GET /byok/{id}). */
const CredentialIdParam: PipeTransform<string, string> = {
  transform(id) {
    if (!UUID.test(id)) throw GatewayError.notFound('No BYOK credential with that id');
    return id.toLowerCase();
  },
};

/**
 * Answered as management answers it (401 `management_key_required`), but before the body is
 * validated: a key that may not manage credentials learns nothing about the rules.
 */
const managementKeyRequired = () =>
  new GatewayError(401, 'A management key is required for this operation', {
    errorType: 'authentication',
    metadata: { reason: 'management_key_required' },
  });

/** BYOK provider credentials (spec §2.4, §4.7), answered by management. The secret goes in, never out. */
@Controller('v1/byok')
@KeyKinds('management')
@UseGuards(new ManagementKeyGuard(managementKeyRequired))
export class ByokController {
  constructor(private readonly rpc: RpcClient) {}

  @Post()
  @Doc('Add a BYOK provider credential')
  @Answers(201, 'ByokCredentialAnswer', 'The credential (never its secret)')
  @Fails({ 404: 'No such workspace visible to the key', 409: 'Conflict with an existing credential' })
  @HttpCode(201)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(StrictBody) credential: CreateByokCredentialDto,
  ): Promise<DataEnvelope<ByokCredentialView>> {
    return { data: await this.rpc.send(ByokCreate, { principal, credential }) };
  }

  @Get()
  @Doc('List BYOK credentials')
  @Answers(200, 'ByokCredentialPageAnswer', 'A page of credentials, newest first')
  @Fails({ 404: 'No such workspace visible to the key' })
  async list(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: ListByokQueryDto): Promise<ByokCredentialPage> {
    return this.rpc.send(ByokList, {
      principal,
      provider: query.provider,
      offset: query.offset ?? 0,
      limit: query.limit ?? BYOK_PAGE_SIZE,
      workspaceId: query.workspace_id,
    });
  }

  @Get(':id')
  @Doc('Get a BYOK credential (spec §4.7)')
  @PathParam('id', { type: 'string', format: 'uuid' }, 'The credential id; any other string is a 404')
  @Answers(200, 'ByokCredentialAnswer', 'The credential')
  @Fails({ 404: 'No credential with that id' })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id', CredentialIdParam) id: string,
  ): Promise<DataEnvelope<ByokCredentialView>> {
    return { data: await this.rpc.send(ByokGet, { principal, id }) };
  }

  @Patch(':id')
  @Doc('Update a BYOK credential')
  @PathParam('id', { type: 'string', format: 'uuid' }, 'The credential id; any other string is a 404')
  @Answers(200, 'ByokCredentialAnswer', 'The updated credential')
  @Fails({ 404: 'No credential with that id', 409: 'The credential is in use' })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', CredentialIdParam) id: string,
    @Body(StrictBody) changes: UpdateByokCredentialDto,
  ): Promise<DataEnvelope<ByokCredentialView>> {
    return { data: await this.rpc.send(ByokUpdate, { principal, id, changes }) };
  }

  /** Inference makes the call (it holds the catalog's provider addresses); its own timeout bounds it well under this one. */
  @Post(':id/test')
  @HttpCode(200)
  @Doc('Test a BYOK credential', "One cheap call through it (the provider's model list): ok, or the provider's status in words.")
  @PathParam('id', { type: 'string', format: 'uuid' }, 'The credential id; any other string is a 404')
  @Answers(200, 'ByokTestAnswer', 'Whether the provider accepted the credential (never the secret nor the provider body)')
  @Fails({ 404: 'No usable credential with that id (a disabled one is not tested)' })
  async test(@CurrentPrincipal() principal: Principal, @Param('id', CredentialIdParam) id: string): Promise<DataEnvelope<ByokTestView>> {
    return { data: await this.rpc.send(ByokTest, { principal, id }, BYOK_TEST_RPC_TIMEOUT_MS) };
  }

  @Delete(':id')
  @Doc('Delete a BYOK credential')
  @PathParam('id', { type: 'string', format: 'uuid' }, 'The credential id; any other string is a 404')
  @Answers(200, 'DeletedAnswer', 'Deleted')
  @Fails({ 404: 'No credential with that id', 409: 'The credential is in use by a preset' })
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', CredentialIdParam) id: string): Promise<DeletedReply> {
    return this.rpc.send(ByokDelete, { principal, id });
  }
}
