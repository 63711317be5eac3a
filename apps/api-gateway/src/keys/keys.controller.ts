import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import {
  amountToDecimalString,
  CreateKeyDto,
  type KeyRateLimitDto,
  type KeyRateLimits,
  ListKeysQueryDto,
  UpdateKeyDto,
  type ApiKeyView,
  type DataEnvelope,
  type KeysCreateReply,
  type Principal,
  KeysCreate,
  KeysDelete,
  KeysGet,
  KeysList,
  KeysUpdate,
} from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { StrictBodyOrEmpty, StrictQuery } from '../input/dto-pipes.js';
import { KeyHashParam } from './key-hash.pipe.js';
import { Answers, Doc, Fails, KeyKinds, PathParam } from '../openapi/api-docs.js';

const decimalOrNull = (amount: number | null | undefined) => (amount == null ? amount : amountToDecimalString(amount));

/** `rate_limit` on the wire -> the key's overrides: absent stays absent, null clears. */
const rateLimits = (limit: KeyRateLimitDto | null | undefined): KeyRateLimits | null | undefined =>
  limit == null ? limit : { requestsPerMinute: limit.requests_per_minute ?? null, concurrentRequests: limit.concurrent_requests ?? null };

/**
 * GET /v1/keys and GET /v1/keys/{hash} (spec §4.2, §4.3) and OpenRouter's POST /keys,
 * PATCH /keys/{hash}, DELETE /keys/{hash}, answered by management. Management key only.
 */
@Controller('v1/keys')
@KeyKinds('management')
export class KeysController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Doc('List API keys (spec §4.2)')
  @Answers(200, 'ApiKeyListAnswer', 'The keys, newest first')
  @Fails({ 404: 'No such workspace visible to the key' })
  async list(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: ListKeysQueryDto): Promise<DataEnvelope<ApiKeyView[]>> {
    const data = await this.rpc.send(KeysList, {
      principal,
      includeDisabled: query.include_disabled ?? false,
      offset: query.offset ?? 0,
      workspaceId: query.workspace_id,
    });
    return { data };
  }

  @Get(':hash')
  @Doc('Get an API key (spec §4.3)')
  @PathParam(
    'hash',
    { type: 'string', pattern: '^[0-9a-f]{64}$' },
    'The key hash (64 lower-case hex characters); any other string is a 404',
  )
  @Answers(200, 'ApiKeyAnswer', 'The key')
  @Fails({ 404: 'No key with that hash' })
  async get(@CurrentPrincipal() principal: Principal, @Param('hash', KeyHashParam) hash: string): Promise<DataEnvelope<ApiKeyView>> {
    const data = await this.rpc.send(KeysGet, { principal, hash });
    return { data };
  }

  /** 201 with the key object and, this once, its secret (OpenRouter's `{ data, key }`). */
  @Post()
  @Doc('Create an API key')
  @Answers(201, 'ApiKeyCreatedAnswer', 'The key and, this once, its secret')
  @Fails({ 403: 'The key may not create this kind of key', 404: 'No such workspace visible to the key' })
  async create(@CurrentPrincipal() principal: Principal, @Body(StrictBodyOrEmpty) dto: CreateKeyDto): Promise<KeysCreateReply> {
    return this.rpc.send(KeysCreate, {
      principal,
      name: dto.name,
      limit: decimalOrNull(dto.limit),
      limitReset: dto.limit_reset,
      includeByokInLimit: dto.include_byok_in_limit ?? false,
      expiresAt: dto.expires_at,
      workspaceId: dto.workspace_id,
      creatorUserId: dto.creator_user_id,
      internId: dto.intern_id,
      rateLimits: rateLimits(dto.rate_limit),
      responseCacheTtlSeconds: dto.response_cache_ttl_seconds,
    });
  }

  @Patch(':hash')
  @Doc('Update an API key')
  @PathParam(
    'hash',
    { type: 'string', pattern: '^[0-9a-f]{64}$' },
    'The key hash (64 lower-case hex characters); any other string is a 404',
  )
  @Answers(200, 'ApiKeyAnswer', 'The updated key')
  @Fails({ 403: 'The key may not change this key', 404: 'No key with that hash' })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('hash', KeyHashParam) hash: string,
    @Body(StrictBodyOrEmpty) dto: UpdateKeyDto,
  ): Promise<DataEnvelope<ApiKeyView>> {
    const data = await this.rpc.send(KeysUpdate, {
      principal,
      hash,
      name: dto.name,
      disabled: dto.disabled,
      limit: decimalOrNull(dto.limit),
      limitReset: dto.limit_reset,
      includeByokInLimit: dto.include_byok_in_limit,
      expiresAt: dto.expires_at,
      rateLimits: rateLimits(dto.rate_limit),
      responseCacheTtlSeconds: dto.response_cache_ttl_seconds,
    });
    return { data };
  }

  @Delete(':hash')
  @Doc('Delete an API key')
  @PathParam(
    'hash',
    { type: 'string', pattern: '^[0-9a-f]{64}$' },
    'The key hash (64 lower-case hex characters); any other string is a 404',
  )
  @Answers(200, 'DeletedAnswer', 'Deleted')
  @Fails({ 403: 'The key may not delete this key', 404: 'No key with that hash' })
  async delete(@CurrentPrincipal() principal: Principal, @Param('hash', KeyHashParam) hash: string): Promise<{ deleted: true }> {
    return this.rpc.send(KeysDelete, { principal, hash });
  }
}
