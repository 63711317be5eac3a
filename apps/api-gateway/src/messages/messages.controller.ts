import { Body, Controller, createParamDecorator, Headers, Post, Req, Res, type ExecutionContext } from '@nestjs/common';
import { MessagesRequestDto, SESSION_ID_MAX_LENGTH, type Principal, MessagesCreate } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { PassThroughBody } from '../input/dto-pipes.js';
import { ChatStreamRelay } from '../chat/chat-stream.relay.js';
import { CancellableInferenceCalls } from '../chat/inference-calls.js';
import { wantsServiceMetadata } from '../chat/service-metadata-header.js';
import { MESSAGES_FRAMING } from './messages-framing.js';
import { ApiHeader } from '@nestjs/swagger';
import { AnswersOrStreams, Doc, Fails, INFERENCE_FAILS, InferenceHeaders } from '../openapi/api-docs.js';

/** `anthropic-version` as Anthropic dates it; any such version is accepted (the answer is the current shape). */
const ANTHROPIC_VERSION = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The `anthropic-version` header, checked as it is read: declared before the body, so a bad
 * version is refused before the body is validated (as when the handler checked it first).
 */
const AnthropicVersion = createParamDecorator((_data: unknown, context: ExecutionContext): string | undefined => {
  const version = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>().headers[
    'anthropic-version'
  ];
  if (version !== undefined && (typeof version !== 'string' || !ANTHROPIC_VERSION.test(version))) {
    throw GatewayError.badRequest('anthropic-version must be a version date such as 2023-06-01');
  }
  return version;
});

/**
 * POST /v1/messages: Anthropic's Messages API for every chat model of the catalog, answered
 * by inference (a message, or Anthropic's SSE events with `stream: true`; ADR 0029). The key
 * may come as `x-api-key` as well as a bearer token (ApiKeyGuard). Validation, session header,
 * routing-metadata opt-in, cancellation on disconnect: as on chat completions.
 */
@Controller('v1')
export class MessagesController {
  constructor(
    private readonly streams: ChatStreamRelay,
    private readonly calls: CancellableInferenceCalls,
  ) {}

  @Post('messages')
  @Doc(
    "Create a message (Anthropic's Messages API)",
    'Errors on this route also carry `type: "error"` and `error.type` as Anthropic sends them. The key may be sent as `x-api-key`.',
  )
  @ApiHeader({ name: 'anthropic-version', required: false, schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } })
  @AnswersOrStreams(
    'MessageAnswer',
    "Anthropic's Server-Sent Events (`message_start` ... `message_stop`; `event: error` after the first event)",
  )
  @Fails(INFERENCE_FAILS)
  @InferenceHeaders()
  async create(
    @CurrentPrincipal() principal: Principal,
    @AnthropicVersion() _version: string | undefined,
    @Body(PassThroughBody) body: MessagesRequestDto,
    @Req() request: { headers: Record<string, string | string[] | undefined> },
    @Res() reply: FastifyReply,
    @Headers('x-session-id') sessionHeader?: string,
  ): Promise<void> {
    if (sessionHeader !== undefined && sessionHeader.length > SESSION_ID_MAX_LENGTH) {
      throw GatewayError.badRequest(`x-session-id must be at most ${SESSION_ID_MAX_LENGTH} characters`);
    }
    const payload = {
      principal,
      body: body as unknown as Record<string, unknown>,
      sessionId: body.session_id ?? sessionHeader,
      serviceMetadata: wantsServiceMetadata(request.headers),
    };
    if (body.stream === true) {
      await this.streams.relay(reply, payload, MESSAGES_FRAMING);
      return;
    }
    await this.calls.forward(reply, MessagesCreate, payload);
  }
}
