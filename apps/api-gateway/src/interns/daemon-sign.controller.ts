import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Req,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { DaemonSignDto, type DaemonJwksView, type DaemonSignatureHeadersView, type Principal, DaemonJwks, DaemonSign } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { Public } from '../auth/public.decorator.js';
import { InternIdParam } from './intern-id.js';
import { SIGN_TIMEOUT_MS, type SignDeadline } from './intern-routes.js';
import { SignBody } from './sign-body.pipe.js';
import { Answers, DeprecatedDoc, Doc, Fails, PathParam } from '../openapi/api-docs.js';

const SIGN_FAILS = {
  400: 'reason `invalid_body`',
  403: 'reason `personal_identity_required`',
  404: 'reason `not_found`: no intern with that id is visible to the key',
  408: 'reason `timeout`: not finished within 10 s (retryable)',
};

/** RFC 9745: when the alias was deprecated (spec 1.0.0, as served here since 2026-11-23). */
const ALIAS_DEPRECATED_AT = '@1795392000';

/**
 * Deprecation and Link (RFC 9745, RFC 8288) on every answer of the alias that gets past the key
 * guard, errors of its body included: an interceptor runs before the parameter pipes.
 */
class DeprecatedAliasHeaders implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler) {
    const http = context.switchToHttp();
    const internId = http.getRequest<FastifyRequest<{ Params: { internId: string } }>>().params.internId;
    void http
      .getResponse<FastifyReply>()
      .header('deprecation', ALIAS_DEPRECATED_AT)
      .header('link', `</v1/interns/${encodeURIComponent(internId)}/daemon/sign>; rel="successor-version"`);
    return next.handle();
  }
}

/**
 * Spec §4.4: signs a body digest so the intern's daemon can verify who asked. Body limit,
 * content type, regional hosts and the 10 s deadline are enforced by intern-routes hooks.
 */
@Controller()
export class DaemonSignController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('v1/interns/:internId/daemon/sign')
  @Doc("Sign a body digest for an intern's daemon (spec §4.4)")
  @PathParam('internId', { type: 'string', format: 'uuid' }, 'The intern id; any other string is a 404 `not_found`')
  @Answers(200, 'DaemonSignatureAnswer', 'The signature headers (spec §2.5)')
  @Fails(SIGN_FAILS)
  @HttpCode(200)
  sign(
    @CurrentPrincipal() principal: Principal,
    @Param('internId', InternIdParam) internId: string,
    @Body(SignBody) body: DaemonSignDto,
    @Req() request: SignDeadline,
  ): Promise<DaemonSignatureHeadersView> {
    return this.signFor(principal, internId, body, request);
  }

  /** Deprecated alias (spec §9): same behaviour, plus Deprecation and Link (RFC 9745, RFC 8288). */
  @Post('v1/interns/:internId/daemon-access/sign')
  @DeprecatedDoc(
    "Sign a body digest for an intern's daemon (spec §4.4, deprecated alias; answers carry `Deprecation` and `Link`)",
    'POST /v1/interns/{internId}/daemon/sign',
  )
  @PathParam('internId', { type: 'string', format: 'uuid' }, 'The intern id; any other string is a 404 `not_found`')
  @Answers(200, 'DaemonSignatureAnswer', 'The signature headers (spec §2.5)')
  @Fails(SIGN_FAILS)
  @HttpCode(200)
  @UseInterceptors(DeprecatedAliasHeaders)
  signDeprecated(
    @CurrentPrincipal() principal: Principal,
    @Param('internId', InternIdParam) internId: string,
    @Body(SignBody) body: DaemonSignDto,
    @Req() request: SignDeadline,
  ): Promise<DaemonSignatureHeadersView> {
    return this.signFor(principal, internId, body, request);
  }

  /** The public keys daemons verify with (RFC 8037 JWKS); no key needed. */
  @Public()
  @Get('v1/daemon/jwks.json')
  @Doc('The public keys daemons verify signatures with (RFC 8037 JWKS)')
  @Answers(200, 'DaemonJwksAnswer', 'The key set')
  @Header('cache-control', 'public, max-age=300')
  jwks(): Promise<DaemonJwksView> {
    return this.rpc.send(DaemonJwks, {});
  }

  private async signFor(principal: Principal, id: string, dto: DaemonSignDto, request: SignDeadline): Promise<DaemonSignatureHeadersView> {
    const remaining = (request.signDeadline ?? Date.now() + SIGN_TIMEOUT_MS) - Date.now();
    if (remaining <= 0) throw new GatewayError(504, 'The sign operation timed out');
    return this.rpc.send(
      DaemonSign,
      { principal, internId: id, bodySha256: dto.bodySha256, ...(dto.route ? { route: dto.route } : {}) },
      remaining,
    );
  }
}
