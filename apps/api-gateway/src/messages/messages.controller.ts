import { Body, Controller, Headers, Inject, Post, Req, Res } from '@nestjs/common';
import { MessagesRequestDto, SESSION_ID_MAX_LENGTH, SUBJECTS, type MessageView, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient, validateDto } from '@gw/messaging';
import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { ChatStreamRelay, type StreamFraming } from '../chat/chat-stream.relay.js';
import { wantsServiceMetadata } from '../chat/service-metadata-header.js';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { messagesErrorBodyOf } from './anthropic-error.js';

/** `anthropic-version` as Anthropic dates it; any such version is accepted (the answer is the current shape). */
const ANTHROPIC_VERSION = /^\d{4}-\d{2}-\d{2}$/;

/** Anthropic's stream: inference sends each event already framed; an error is Anthropic's `event: error`. */
const MESSAGES_SSE: StreamFraming = {
  subject: SUBJECTS.inference.messagesStream,
  frame: (packet) => packet,
  end: '',
  errorFrame: (_first, failure) => `event: error\ndata: ${JSON.stringify(messagesErrorBodyOf(failure))}\n\n`,
};

/**
 * POST /v1/messages: Anthropic's Messages API for every chat model of the catalog, answered
 * by inference (a message, or Anthropic's SSE events with `stream: true`). The key may come
 * as `x-api-key` as well as a bearer token (ApiKeyGuard).
 */
@Controller('v1/messages')
export class MessagesController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly streams: ChatStreamRelay,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Req() request: { headers: Record<string, string | string[] | undefined> },
    @Res() reply: FastifyReply,
    @Headers('x-session-id') sessionHeader?: string,
    @Headers('anthropic-version') version?: string,
  ): Promise<void> {
    if (version !== undefined && !ANTHROPIC_VERSION.test(version)) throw GatewayError.badRequest('anthropic-version must be a version date such as 2023-06-01');
    const validated = await validateDto(MessagesRequestDto, body, 'keep');
    if (sessionHeader !== undefined && sessionHeader.length > SESSION_ID_MAX_LENGTH) {
      throw GatewayError.badRequest(`x-session-id must be at most ${SESSION_ID_MAX_LENGTH} characters`);
    }
    const payload = {
      principal,
      body: body as Record<string, unknown>,
      sessionId: validated.session_id ?? sessionHeader,
      serviceMetadata: wantsServiceMetadata(request.headers),
    };
    if (validated.stream === true) {
      await this.streams.relay(reply, payload, MESSAGES_SSE);
      return;
    }
    const requestId = randomUUID();
    let answered = false;
    const onClose = () => {
      if (!answered) this.streams.cancel(requestId);
    };
    reply.raw.once('close', onClose);
    let message: MessageView;
    try {
      message = await this.rpc.send<MessageView>(SUBJECTS.inference.messagesCreate, { ...payload, requestId }, this.env.INFERENCE_TIMEOUT_MS);
    } finally {
      answered = true;
      reply.raw.off('close', onClose);
    }
    void reply.status(200).send(message);
  }
}
