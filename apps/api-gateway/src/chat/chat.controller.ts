import { Body, Controller, Headers, Post, Req, Res } from '@nestjs/common';
import { ChatCompletionRequestDto, type Principal, ChatCreate } from '@gw/contracts';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { PassThroughBody } from '../input/dto-pipes.js';
import { CHAT_COMPLETIONS_SSE, InferenceStreamRelay } from './inference-stream.relay.js';
import { CancellableInferenceCalls } from './inference-calls.js';
import { refuseCustomTools } from './custom-tools-refusal.js';
import { frontDoorPayload } from './front-door-payload.js';
import { AnswersOrStreams, Doc, Fails, INFERENCE_FAILS, InferenceHeaders } from '../openapi/api-docs.js';

/** POST /v1/chat/completions, answered by inference (a JSON body, or SSE with `stream: true`). */
@Controller('v1/chat')
export class ChatController {
  constructor(
    private readonly streams: InferenceStreamRelay,
    private readonly calls: CancellableInferenceCalls,
  ) {}

  /** The reply is sent here, not by Nest: a stream takes the raw response over (reply.hijack). */
  @Post('completions')
  @Doc(
    'Create a chat completion (OpenAI chat completions)',
    'With `stream: true`, Server-Sent Events: `data: {chat.completion.chunk}` lines and `data: [DONE]`; a failure after the first chunk is a last chunk with `finish_reason: "error"`.',
  )
  @AnswersOrStreams('ChatCompletionAnswer', 'Server-Sent Events of `chat.completion.chunk` objects ending with `data: [DONE]`')
  @Fails(INFERENCE_FAILS)
  @InferenceHeaders()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(PassThroughBody) body: ChatCompletionRequestDto,
    @Req() request: { headers: Record<string, string | string[] | undefined> },
    @Res() reply: FastifyReply,
    @Headers('x-session-id') sessionHeader?: string,
  ): Promise<void> {
    refuseCustomTools(body.tools);
    const payload = frontDoorPayload(principal, body, request.headers, sessionHeader, 'chat.completions');
    if (body.stream === true) {
      await this.streams.relay(reply, payload, CHAT_COMPLETIONS_SSE);
      return;
    }
    // A client that leaves before the answer cancels the provider call.
    await this.calls.forward(reply, ChatCreate, payload);
  }
}
