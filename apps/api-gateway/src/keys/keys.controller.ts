import { Controller, Get, Param, Query } from '@nestjs/common';
import { KEY_HASH_PATTERN, ListKeysQueryDto, SUBJECTS, type ApiKeyView, type DataEnvelope, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient, validateDto } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';

/** GET /v1/keys and GET /v1/keys/{hash} (spec §4.2, §4.3), answered by management. */
@Controller('v1/keys')
export class KeysController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query() rawQuery: unknown): Promise<DataEnvelope<ApiKeyView[]>> {
    const query = await validateDto(ListKeysQueryDto, rawQuery, 'reject');
    const data = await this.rpc.send<ApiKeyView[]>(SUBJECTS.management.keysList, {
      principal,
      includeDisabled: query.include_disabled ?? false,
      offset: query.offset ?? 0,
      workspaceId: query.workspace_id,
    });
    return { data };
  }

  @Get(':hash')
  async get(@CurrentPrincipal() principal: Principal, @Param('hash') hash: string): Promise<DataEnvelope<ApiKeyView>> {
    // A string that cannot be a hash names no key: 404, the status the spec lists here.
    if (!KEY_HASH_PATTERN.test(hash)) throw GatewayError.notFound('No API key with that hash');
    const data = await this.rpc.send<ApiKeyView>(SUBJECTS.management.keysGet, { principal, hash });
    return { data };
  }
}
