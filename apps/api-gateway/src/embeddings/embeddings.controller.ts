import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { EmbeddingsRequestDto, type EmbeddingsView, type Principal, EmbeddingsCreate } from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { PassThroughBody } from '../input/dto-pipes.js';
import { INFERENCE_RESENDS } from '../chat/inference-resends.js';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { Answers, Doc, Fails, INFERENCE_FAILS } from '../openapi/api-docs.js';

/** POST /v1/embeddings, answered by inference. */
@Controller('v1/embeddings')
export class EmbeddingsController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  @Post()
  @Doc('Create embeddings')
  @Answers(200, 'EmbeddingsAnswer', 'The embeddings and their usage')
  @Fails(INFERENCE_FAILS)
  @HttpCode(200)
  async create(@CurrentPrincipal() principal: Principal, @Body(PassThroughBody) body: EmbeddingsRequestDto): Promise<EmbeddingsView> {
    // Forwarded as received (validated, not rebuilt), so provider-specific fields still reach the provider.
    return this.rpc.send(EmbeddingsCreate, { principal, body: body as unknown as Record<string, unknown> }, this.env.INFERENCE_TIMEOUT_MS, {
      resendUncommitted: INFERENCE_RESENDS,
    });
  }
}
