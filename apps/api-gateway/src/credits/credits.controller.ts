import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import {
  AddCreditsDto,
  amountToDecimalString,
  type CreditsView,
  type DataEnvelope,
  type Principal,
  CreditsAdd,
  CreditsGet,
} from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { StrictBodyOrEmpty } from '../input/dto-pipes.js';
import { Answers, Doc, Fails } from '../openapi/api-docs.js';

/**
 * GET /v1/credits (OpenRouter's shape: any key reads its workspace's totals) and
 * POST /v1/credits (management key: add credits; docs/adr: credits), answered by management.
 */
@Controller('v1/credits')
export class CreditsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Doc("The key's workspace credits")
  @Answers(200, 'CreditsAnswer', 'Total credits and usage')
  async get(@CurrentPrincipal() principal: Principal): Promise<DataEnvelope<CreditsView>> {
    return { data: await this.rpc.send(CreditsGet, { principal }) };
  }

  /** 200, not 201: it changes a balance, it creates nothing the client can address. */
  @Post()
  @Doc('Add credits to a workspace (management key)')
  @Answers(200, 'CreditsAnswer', 'The new totals')
  @Fails({ 404: 'No such workspace visible to the key' })
  @HttpCode(200)
  async add(@CurrentPrincipal() principal: Principal, @Body(StrictBodyOrEmpty) dto: AddCreditsDto): Promise<DataEnvelope<CreditsView>> {
    const data = await this.rpc.send(CreditsAdd, {
      principal,
      amount: amountToDecimalString(dto.amount),
      workspaceId: dto.workspace_id,
    });
    return { data };
  }
}
