import { Body, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { EmbeddingsRequestDto, type Principal, EmbeddingsCreate } from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { PassThroughBody } from '../input/dto-pipes.js';
import { JSON_CONTENT_TYPE } from '../chat/inference-calls.js';
import { INFERENCE_RESENDS } from '../chat/inference-resends.js';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { cacheControlsOf, cacheStatusFrom } from '../response-cache/cache-headers.js';
import { Answers, Doc, Fails, INFERENCE_FAILS } from '../openapi/api-docs.js';
import { idempotencyOf } from '../idempotency/idempotency-key.js';

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
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(PassThroughBody) body: EmbeddingsRequestDto,
    @Req() request: { headers: Record<string, string | string[] | undefined> },
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // Forwarded as received (validated, not rebuilt), so provider-specific fields still reach the provider.
    const payload = {
      principal,
      body,
      idempotency: idempotencyOf(request.headers, 'embeddings', body),
      cache: cacheControlsOf(request.headers),
    };
    // The answer's JSON as inference serialised it, sent as it is.
    const answer = await this.rpc.sendJson(EmbeddingsCreate, payload, this.env.INFERENCE_TIMEOUT_MS, {
      resendUncommitted: INFERENCE_RESENDS,
      onReplyHeaders: cacheStatusFrom(reply),
    });
    void reply.status(200).type(JSON_CONTENT_TYPE).send(answer);
  }
}
