import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import {
  amountToDecimalString,
  CreateKeyDto,
  type KeyRateLimitDto,
  type KeyRateLimits,
  ListKeysQueryDto,
  SUBJECTS,
  UpdateKeyDto,
  type ApiKeyView,
  type DataEnvelope,
  type KeysCreateReply,
  type Principal,
} from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { StrictBodyOrEmpty, StrictQuery } from '../input/dto-pipes.js';
import { KeyHashParam } from './key-hash.pipe.js';

const decimalOrNull = (amount: number | null | undefined) => (amount == null ? amount : amountToDecimalString(amount));

/** `rate_limit` on the wire -> the key's overrides (ADR 0033): absent stays absent, null clears. */
const rateLimits = (limit: KeyRateLimitDto | null | undefined): KeyRateLimits | null | undefined =>
  limit == null ? limit : { requestsPerMinute: limit.requests_per_minute ?? null, concurrentRequests: limit.concurrent_requests ?? null };

/**
 * GET /v1/keys and GET /v1/keys/{hash} (spec §4.2, §4.3) and OpenRouter's POST /keys,
 * PATCH /keys/{hash}, DELETE /keys/{hash}, answered by management. Management key only.
 */
@Controller('v1/keys')
export class KeysController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: ListKeysQueryDto): Promise<DataEnvelope<ApiKeyView[]>> {
    const data = await this.rpc.send<ApiKeyView[]>(SUBJECTS.management.keysList, {
      principal,
      includeDisabled: query.include_disabled ?? false,
      offset: query.offset ?? 0,
      workspaceId: query.workspace_id,
    });
    return { data };
  }

  @Get(':hash')
  async get(@CurrentPrincipal() principal: Principal, @Param('hash', KeyHashParam) hash: string): Promise<DataEnvelope<ApiKeyView>> {
    const data = await this.rpc.send<ApiKeyView>(SUBJECTS.management.keysGet, { principal, hash });
    return { data };
  }

  /** 201 with the key object and, this once, its secret (OpenRouter's `{ data, key }`). */
  @Post()
  async create(@CurrentPrincipal() principal: Principal, @Body(StrictBodyOrEmpty) dto: CreateKeyDto): Promise<KeysCreateReply> {
    return this.rpc.send<KeysCreateReply>(SUBJECTS.management.keysCreate, {
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
    });
  }

  @Patch(':hash')
  async update(@CurrentPrincipal() principal: Principal, @Param('hash', KeyHashParam) hash: string, @Body(StrictBodyOrEmpty) dto: UpdateKeyDto): Promise<DataEnvelope<ApiKeyView>> {
    const data = await this.rpc.send<ApiKeyView>(SUBJECTS.management.keysUpdate, {
      principal,
      hash,
      name: dto.name,
      disabled: dto.disabled,
      limit: decimalOrNull(dto.limit),
      limitReset: dto.limit_reset,
      includeByokInLimit: dto.include_byok_in_limit,
      expiresAt: dto.expires_at,
      rateLimits: rateLimits(dto.rate_limit),
    });
    return { data };
  }

  @Delete(':hash')
  async delete(@CurrentPrincipal() principal: Principal, @Param('hash', KeyHashParam) hash: string): Promise<{ deleted: true }> {
    return this.rpc.send<{ deleted: true }>(SUBJECTS.management.keysDelete, { principal, hash });
  }
}
