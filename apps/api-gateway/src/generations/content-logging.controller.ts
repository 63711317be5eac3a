import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import {
  type ContentLoggingView,
  type DataEnvelope,
  type Principal,
  ContentLoggingGet,
  ContentLoggingSet,
  SetContentLoggingDto,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { ManagementKeyGuard } from '../auth/management-key.guard.js';
import { StrictBody } from '../input/dto-pipes.js';
import { Answers, Doc, Fails, KeyKinds } from '../openapi/api-docs.js';

const managementKeyRequired = () =>
  new GatewayError(403, 'Only management keys may change content logging', {
    errorType: 'permission_denied',
    metadata: { reason: 'management_key_required' },
  });

/**
 * The workspace's content logging (off by default): whether `GET /v1/generation/content` has
 * anything to answer for its new generations, and how long contents are kept. Served by
 * inference, which stores the contents.
 */
@Controller('v1/content-logging')
@KeyKinds('management')
@Fails({ 403: 'Only management keys may change content logging' })
@UseGuards(new ManagementKeyGuard(managementKeyRequired))
export class ContentLoggingController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Doc("The workspace's content logging setting and the deployment's bounds on it")
  @Answers(200, 'ContentLoggingAnswer', 'The setting')
  async get(@CurrentPrincipal() principal: Principal): Promise<DataEnvelope<ContentLoggingView>> {
    return { data: await this.rpc.send(ContentLoggingGet, { principal }) };
  }

  @Put()
  @Doc('Turn content logging on or off for the workspace (new generations only), and set how many days contents are kept')
  @Answers(200, 'ContentLoggingAnswer', 'The setting as saved')
  @Fails({ 400: 'retention_days above the deployment maximum', 409: 'The deployment has no key to seal contents with (CONTENT_KEKS)' })
  async set(
    @CurrentPrincipal() principal: Principal,
    @Body(StrictBody) change: SetContentLoggingDto,
  ): Promise<DataEnvelope<ContentLoggingView>> {
    return { data: await this.rpc.send(ContentLoggingSet, { principal, change }) };
  }
}
