import { Body, Controller, createParamDecorator, Headers, Post, Req, Res, type ExecutionContext } from '@nestjs/common';
import { MessagesCountTokens, MessagesCountTokensRequestDto, MessagesCreate, MessagesRequestDto, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { PassThroughBody } from '../input/dto-pipes.js';
import { InferenceStreamRelay } from '../chat/inference-stream.relay.js';
import { CancellableInferenceCalls } from '../chat/inference-calls.js';
import { frontDoorPayload } from '../chat/front-door-payload.js';
import { MESSAGES_FRAMING } from './messages-framing.js';
import { warningHeaderOf } from './gateway-warnings.js';
import { anthropicBetasOf } from './anthropic-beta.js';
import { JSON_CONTENT_TYPE } from '../chat/inference-calls.js';
import { RpcClient } from '@gw/messaging';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { Inject } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { Answers, AnswersOrStreams, Doc, Fails, INFERENCE_FAILS, InferenceHeaders } from '../openapi/api-docs.js';

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

/** The header that says who counted the tokens of `/v1/messages/count_tokens`. */
const TOKEN_COUNT_HEADER = 'x-token-count-source';

/**
 * POST /v1/messages: Anthropic's Messages API for every chat model of the catalog, answered
 * by inference (a message, or Anthropic's SSE events with `stream: true`). The key
 * may come as `x-api-key` as well as a bearer token (ApiKeyGuard). Validation, session header,
 * routing-metadata opt-in, cancellation on disconnect: as on chat completions. `anthropic-beta`
 * goes on to Anthropic-format endpoints; what an endpoint left out is the `x-gateway-warning`
 * header. POST /v1/messages/count_tokens counts a body's input tokens.
 */
@Controller('v1')
export class MessagesController {
  constructor(
    private readonly streams: InferenceStreamRelay,
    private readonly calls: CancellableInferenceCalls,
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
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
    const payload = {
      ...frontDoorPayload(principal, body, request.headers, sessionHeader, 'messages'),
      anthropicBeta: anthropicBetasOf(request.headers),
    };
    if (body.stream === true) {
      await this.streams.relay(reply, payload, MESSAGES_FRAMING);
      return;
    }
    const answer = await this.calls.send(reply, MessagesCreate, payload);
    const warning = warningHeaderOf(answer);
    if (warning) void reply.headers(warning);
    void reply.status(200).type(JSON_CONTENT_TYPE).send(answer);
  }

  @Post('messages/count_tokens')
  @Doc(
    "Count a message's input tokens (Anthropic's count_tokens)",
    "Anthropic's own count on an Anthropic-format model; otherwise the chat form counted with gpt-tokenizer (o200k_base). `x-token-count-source` says which. Nothing is generated or charged.",
  )
  @ApiHeader({ name: 'anthropic-version', required: false, schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } })
  @Answers(200, 'MessageTokenCountAnswer', 'The input tokens, as Anthropic answers them')
  @Fails(INFERENCE_FAILS)
  async countTokens(
    @CurrentPrincipal() principal: Principal,
    @AnthropicVersion() _version: string | undefined,
    @Body(PassThroughBody) body: MessagesCountTokensRequestDto,
    @Req() request: { headers: Record<string, string | string[] | undefined> },
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const payload = {
      principal,
      body,
      anthropicBeta: anthropicBetasOf(request.headers),
    };
    const { input_tokens: inputTokens, counted_by: countedBy } = await this.rpc.send(
      MessagesCountTokens,
      payload,
      this.env.INFERENCE_TIMEOUT_MS,
    );
    void reply.status(200).header(TOKEN_COUNT_HEADER, countedBy).type(JSON_CONTENT_TYPE).send({ input_tokens: inputTokens });
  }
}
