import { Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  type DataEnvelope,
  type IdentityView,
  type OidcStartView,
  type Principal,
  IdentityGet,
  IdentityUnlink,
  OidcCallback,
  OidcStart,
} from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthCacheService } from '../auth/auth-cache.service.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { Public } from '../auth/public.decorator.js';
import { toGatewayError } from '../errors/http-error.mapper.js';
import { failedPage, linkedPage } from './identity-page.js';
import { Answers, AnswersHtml, Doc, Fails } from '../openapi/api-docs.js';

/**
 * Personal identity by OIDC login, answered by management: who am I, start a
 * login (the user's key; returns the issuer's authorization URL), the issuer's callback (no
 * key: the browser arrives from the issuer; the state names the login), unlink.
 */
@Controller('v1/identity')
export class IdentityController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly auth: AuthCacheService,
  ) {}

  @Get()
  @Doc('Who the key belongs to, and its linked identity')
  @Answers(200, 'IdentityAnswer', 'The user, workspace, key and identity')
  async get(@CurrentPrincipal() principal: Principal): Promise<DataEnvelope<IdentityView>> {
    return { data: await this.rpc.send(IdentityGet, { principal }) };
  }

  @Delete()
  @Doc('Unlink the personal identity')
  @Answers(200, 'IdentityAnswer', 'The user, now without identity')
  @Fails({ 403: 'An intern key has no personal identity', 404: 'No identity is linked' })
  async unlink(@CurrentPrincipal() principal: Principal): Promise<DataEnvelope<IdentityView>> {
    const { changedKeyHashes, ...view } = await this.rpc.send(IdentityUnlink, {
      principal,
    });
    this.auth.forget(changedKeyHashes ?? []);
    return { data: view };
  }

  /** 200, not 201: nothing addressable is created, the client is sent on to the issuer. */
  @Post('oidc/start')
  @Doc('Start a personal identity login (OIDC)')
  @Answers(200, 'OidcStartAnswer', "The issuer's authorization URL")
  @Fails({ 403: 'reason `person_key_required`: an intern key cannot log a person in', 404: 'OIDC login is not configured' })
  @HttpCode(200)
  async start(@CurrentPrincipal() principal: Principal): Promise<DataEnvelope<OidcStartView>> {
    return { data: await this.rpc.send(OidcStart, { principal }) };
  }

  /** A browser page either way: the linked identity, or why not (with the error's status). */
  @Public()
  @Get('oidc/callback')
  @Doc("The issuer's redirect back (a browser page)", 'The raw query of the issuer (`code`, `state`, or `error`) is passed on as received.')
  @AnswersHtml({
    200: 'Linked',
    400: 'reason `invalid_state`, `expired_state`, `oidc_error` or `id_token_rejected`',
    401: 'The login was refused',
    404: 'OIDC login is not configured',
    409: 'reason `identity_in_use`',
    410: 'The login expired',
    500: 'The login could not be finished',
    502: 'The issuer failed',
    503: 'A service is unavailable',
    504: 'A service did not answer in time',
  })
  async callback(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').type('text/html; charset=utf-8');
    try {
      const linked = await this.rpc.send(OidcCallback, { query });
      this.auth.forget(linked.changedKeyHashes ?? []);
      await reply.status(200).send(linkedPage(linked.identity));
    } catch (exception) {
      const error = toGatewayError(exception);
      await reply
        .status(error.status)
        .send(
          failedPage(
            error.status,
            error.status >= 500 ? 'The login could not be finished; try again.' : error.message,
            error.metadata?.reason as string | undefined,
          ),
        );
    }
  }
}
