import { Body, Controller, Headers, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ChatCompletionRequestDto, SESSION_ID_MAX_LENGTH, SUBJECTS, type ChatCompletionView, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient, validateDto } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { wantsServiceMetadata } from './service-metadata-header.js';

/** POST /v1/chat/completions, answered by inference. */
@Controller('v1/chat')
export class ChatController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  @Post('completions')
  @HttpCode(200)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Req() request: { headers: Record<string, string | string[] | undefined> },
    @Headers('x-session-id') sessionHeader?: string,
  ): Promise<ChatCompletionView> {
    const validated = await validateDto(ChatCompletionRequestDto, body, 'keep');
    if (validated.stream === true) {
      throw GatewayError.badRequest('Streaming chat completions are not available yet; send stream: false');
    }
    if (sessionHeader !== undefined && sessionHeader.length > SESSION_ID_MAX_LENGTH) {
      throw GatewayError.badRequest(`x-session-id must be at most ${SESSION_ID_MAX_LENGTH} characters`);
    }
    // The body is forwarded as received (validated, not rebuilt), so fields the gateway
    // does not model still reach providers that support them. The body's session_id wins.
    return this.rpc.send<ChatCompletionView>(
      SUBJECTS.inference.chatCreate,
      { principal, body, sessionId: validated.session_id ?? sessionHeader, serviceMetadata: wantsServiceMetadata(request.headers) },
      this.env.INFERENCE_TIMEOUT_MS,
    );
  }
}
