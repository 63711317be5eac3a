import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  BYOK_PAGE_SIZE,
  CreateByokCredentialDto,
  ListByokQueryDto,
  SUBJECTS,
  UpdateByokCredentialDto,
  type ByokCredentialPage,
  type ByokCredentialView,
  type DataEnvelope,
  type DeletedReply,
  type Principal,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient, validateDto } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A string that cannot be a credential id names none: 404, the status the spec lists for GET /byok/{id}. */
function credentialId(id: string): string {
  if (!UUID.test(id)) throw GatewayError.notFound('No BYOK credential with that id');
  return id.toLowerCase();
}

/**
 * Answered as management answers it (401 `management_key_required`), but before the body is
 * validated: a key that may not manage credentials learns nothing about the rules.
 */
function requireManagementKey(principal: Principal): void {
  if (principal.keyKind !== 'management') {
    throw new GatewayError(401, 'A management key is required for this operation', {
      errorType: 'authentication',
      metadata: { reason: 'management_key_required' },
    });
  }
}

/** BYOK provider credentials (spec §2.4, §4.7), answered by management. The secret goes in, never out. */
@Controller('v1/byok')
export class ByokController {
  constructor(private readonly rpc: RpcClient) {}

  @Post()
  @HttpCode(201)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<DataEnvelope<ByokCredentialView>> {
    requireManagementKey(principal);
    const credential = await validateDto(CreateByokCredentialDto, body, 'reject');
    return { data: await this.rpc.send<ByokCredentialView>(SUBJECTS.management.byokCreate, { principal, credential }) };
  }

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query() rawQuery: unknown): Promise<ByokCredentialPage> {
    requireManagementKey(principal);
    const query = await validateDto(ListByokQueryDto, rawQuery, 'reject');
    return this.rpc.send<ByokCredentialPage>(SUBJECTS.management.byokList, {
      principal,
      provider: query.provider,
      offset: query.offset ?? 0,
      limit: query.limit ?? BYOK_PAGE_SIZE,
      workspaceId: query.workspace_id,
    });
  }

  @Get(':id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<DataEnvelope<ByokCredentialView>> {
    requireManagementKey(principal);
    return { data: await this.rpc.send<ByokCredentialView>(SUBJECTS.management.byokGet, { principal, id: credentialId(id) }) };
  }

  @Patch(':id')
  async update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown): Promise<DataEnvelope<ByokCredentialView>> {
    requireManagementKey(principal);
    const target = credentialId(id);
    const changes = await validateDto(UpdateByokCredentialDto, body, 'reject');
    return { data: await this.rpc.send<ByokCredentialView>(SUBJECTS.management.byokUpdate, { principal, id: target, changes }) };
  }

  @Delete(':id')
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<DeletedReply> {
    requireManagementKey(principal);
    return this.rpc.send<DeletedReply>(SUBJECTS.management.byokDelete, { principal, id: credentialId(id) });
  }
}
