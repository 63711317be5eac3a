import { Body, Controller, Get, Header, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { DaemonSignDto, SUBJECTS, type DaemonJwksView, type DaemonSignatureHeadersView, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient, validateDto } from '@gw/messaging';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { Public } from '../auth/public.decorator.js';
import { internIdParam } from './intern-id.js';
import { SIGN_TIMEOUT_MS, type SignDeadline } from './intern-routes.js';

/** RFC 9745: when the alias was deprecated (spec 1.0.0, as served here since 2026-11-23). */
const ALIAS_DEPRECATED_AT = '@1795392000';

/**
 * Spec §4.4: signs a body digest so the intern's daemon can verify who asked. Body limit,
 * content type, regional hosts and the 10 s deadline are enforced by intern-routes hooks.
 */
@Controller()
export class DaemonSignController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('v1/interns/:internId/daemon/sign')
  @HttpCode(200)
  sign(
    @CurrentPrincipal() principal: Principal,
    @Param('internId') internId: string,
    @Body() body: unknown,
    @Req() request: SignDeadline,
  ): Promise<DaemonSignatureHeadersView> {
    return this.signFor(principal, internId, body, request);
  }

  /** Deprecated alias (spec §9): same behaviour, plus Deprecation and Link (RFC 9745, RFC 8288). */
  @Post('v1/interns/:internId/daemon-access/sign')
  @HttpCode(200)
  async signDeprecated(
    @CurrentPrincipal() principal: Principal,
    @Param('internId') internId: string,
    @Body() body: unknown,
    @Req() request: SignDeadline,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DaemonSignatureHeadersView> {
    void reply
      .header('deprecation', ALIAS_DEPRECATED_AT)
      .header('link', `</v1/interns/${encodeURIComponent(internId)}/daemon/sign>; rel="successor-version"`);
    return this.signFor(principal, internId, body, request);
  }

  /** The public keys daemons verify with (RFC 8037 JWKS); no key needed. */
  @Public()
  @Get('v1/daemon/jwks.json')
  @Header('cache-control', 'public, max-age=300')
  jwks(): Promise<DaemonJwksView> {
    return this.rpc.send<DaemonJwksView>(SUBJECTS.internSigning.daemonJwks, {});
  }

  private async signFor(principal: Principal, internId: string, body: unknown, request: SignDeadline): Promise<DaemonSignatureHeadersView> {
    const id = internIdParam(internId);
    const dto = await validateDto(DaemonSignDto, body, 'reject').catch(asInvalidBody);
    const remaining = (request.signDeadline ?? Date.now() + SIGN_TIMEOUT_MS) - Date.now();
    if (remaining <= 0) throw new GatewayError(504, 'The sign operation timed out');
    return this.rpc.send<DaemonSignatureHeadersView>(
      SUBJECTS.internSigning.daemonSign,
      { principal, internId: id, bodySha256: dto.bodySha256, ...(dto.route ? { route: dto.route } : {}) },
      remaining,
    );
  }
}

function asInvalidBody(error: unknown): never {
  if (error instanceof GatewayError && error.status === 400) {
    throw new GatewayError(400, error.message, { metadata: { reason: 'invalid_body', retryable: false } });
  }
  throw error;
}
