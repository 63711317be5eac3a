import { Controller, Get, Query } from '@nestjs/common';
import { type DataEnvelope, type GenerationView, type Principal, GenerationQueryDto, GenerationsGet } from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { StrictQuery } from '../input/dto-pipes.js';
import { Answers, Doc, Fails } from '../openapi/api-docs.js';

/** GET /v1/generation?id= (`@openrouter/sdk` `generations.getGeneration`), answered by inference from its generation records. */
@Controller('v1/generation')
export class GenerationsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Doc("One generation of the key's workspace: cost, tokens, provider calls")
  @Answers(200, 'GenerationAnswer', 'The generation')
  @Fails({ 404: 'No generation with that id in the workspace of the key (an intern key: one it made)' })
  async get(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: GenerationQueryDto): Promise<DataEnvelope<GenerationView>> {
    return { data: await this.rpc.send(GenerationsGet, { principal, id: query.id }) };
  }
}
