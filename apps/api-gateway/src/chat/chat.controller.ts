import { Body, Controller, Headers, Post, Req, Res } from '@nestjs/common';
import { ChatCompletionRequestDto, SESSION_ID_MAX_LENGTH, type Principal, ChatCreate } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { PassThroughBody } from '../input/dto-pipes.js';
import { ChatStreamRelay } from './chat-stream.relay.js';
import { CancellableInferenceCalls } from './inference-calls.js';
import { refuseCustomTools } from './custom-tools-refusal.js';
import { metadataOptIn } from './service-metadata-header.js';
import { cacheControlsOf } from '../response-cache/cache-headers.js';
import { AnswersOrStreams, Doc, Fails, INFERENCE_FAILS, InferenceHeaders } from '../openapi/api-docs.js';
import { idempotencyOf } from '../idempotency/idempotency-key.js';

/** POST /v1/chat/completions, answered by inference (a JSON body, or SSE with `stream: true`). */
@Controller('v1/chat')
export class ChatController {
  constructor(
    private readonly streams: ChatStreamRelay,
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
    if (sessionHeader !== undefined && sessionHeader.length > SESSION_ID_MAX_LENGTH) {
      throw GatewayError.badRequest(`x-session-id must be at most ${SESSION_ID_MAX_LENGTH} characters`);
    }
    refuseCustomTools(body.tools);
    // The body is forwarded as received (validated, not rebuilt: PassThroughBody), so fields the
    // gateway does not model still reach providers that support them. The body's session_id wins.
    const payload = {
      principal,
      body: body as unknown as Record<string, unknown>,
      sessionId: body.session_id ?? sessionHeader,
      ...metadataOptIn(request.headers),
      idempotency: idempotencyOf(request.headers, 'chat.completions', body),
      cache: cacheControlsOf(request.headers),
    };
    if (body.stream === true) {
      await this.streams.relay(reply, payload);
      return;
    }
    // A client that leaves before the answer cancels the provider call.
    await this.calls.forward(reply, ChatCreate, payload);
  }
}
