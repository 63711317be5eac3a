import { Body, Controller, Headers, Post, Req, Res } from '@nestjs/common';
import { ResponsesRequestDto, type Principal, ResponsesCreate } from '@gw/contracts';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { PassThroughBody } from '../input/dto-pipes.js';
import { InferenceStreamRelay } from '../chat/inference-stream.relay.js';
import { CancellableInferenceCalls } from '../chat/inference-calls.js';
import { frontDoorPayload } from '../chat/front-door-payload.js';
import { RESPONSES_FRAMING } from './responses-framing.js';
import { leftOutHeaderOf } from './responses-left-out.js';
import { AnswersOrStreams, Doc, Fails, INFERENCE_FAILS, InferenceHeaders } from '../openapi/api-docs.js';

/**
 * POST /v1/responses (spec §4.5), answered by inference: the spec §2.6 response object, or
 * with `stream: true` OpenAI's semantic events over SSE. Validation, session
 * header, routing-metadata opt-in, cancellation on disconnect: as on chat completions. Body
 * fields the gateway neither serves nor refuses are named in `x-gateway-warning`.
 */
@Controller('v1')
export class ResponsesController {
  constructor(
    private readonly streams: InferenceStreamRelay,
    private readonly calls: CancellableInferenceCalls,
  ) {}

  @Post('responses')
  @Doc('Create a model response (OpenAI Responses API, spec §4.5)')
  @AnswersOrStreams(
    'ResponsesAnswer',
    'Server-Sent Events (`event:` + `data:`) of the Responses API, `response.failed` on a failure after the first event',
  )
  @Fails(INFERENCE_FAILS)
  @InferenceHeaders()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(PassThroughBody) body: ResponsesRequestDto,
    @Req() request: { headers: Record<string, string | string[] | undefined> },
    @Res() reply: FastifyReply,
    @Headers('x-session-id') sessionHeader?: string,
  ): Promise<void> {
    const payload = frontDoorPayload(principal, body, request.headers, sessionHeader, 'responses');
    const leftOut = leftOutHeaderOf(payload.body);
    if (leftOut) void reply.headers(leftOut);
    if (body.stream === true) {
      await this.streams.relay(reply, payload, RESPONSES_FRAMING);
      return;
    }
    await this.calls.forward(reply, ResponsesCreate, payload);
  }
}
