import { Body, Controller, Get, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import {
  ANALYTICS_DIMENSIONS,
  ANALYTICS_GRANULARITIES,
  ANALYTICS_METRICS,
  ANALYTICS_OPERATORS,
  type ActivityItemView,
  type AnalyticsMetaView,
  type AnalyticsResultView,
  type DataEnvelope,
  type Principal,
  ActivityQueryDto,
  AnalyticsActivity,
  AnalyticsQuery,
  AnalyticsQueryDto,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { ManagementKeyGuard } from '../auth/management-key.guard.js';
import { StrictBody, StrictQuery } from '../input/dto-pipes.js';
import { Answers, Doc, Fails, KeyKinds } from '../openapi/api-docs.js';

/** Checked here, before the body is validated, and again by inference. */
const managementKeyRequired = () =>
  new GatewayError(403, 'Only management keys may read activity and analytics', {
    errorType: 'permission_denied',
    metadata: { reason: 'management_key_required' },
  });

/** Fixed: what the rollups can answer. */
const META: AnalyticsMetaView = {
  dimensions: Object.entries(ANALYTICS_DIMENSIONS).map(([name, display_label]) => ({ name, display_label })),
  granularities: Object.entries(ANALYTICS_GRANULARITIES).map(([name, display_label]) => ({ name, display_label })),
  metrics: Object.entries(ANALYTICS_METRICS).map(([name, metric]) => ({
    name,
    display_label: metric.label,
    display_format: metric.format,
    is_rate: metric.rate,
  })),
  operators: Object.entries(ANALYTICS_OPERATORS).map(([name, value_type]) => ({ name, value_type })),
};

/**
 * `@openrouter/sdk`'s `analytics.*`: `GET /v1/activity`, `GET /v1/analytics/meta`,
 * `POST /v1/analytics/query`, answered by inference from the hourly rollups of the key's workspace.
 */
@Controller('v1')
@KeyKinds('management')
@Fails({ 403: 'Only management keys may read activity and analytics' })
@UseGuards(new ManagementKeyGuard(managementKeyRequired))
export class AnalyticsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('activity')
  @Doc('Requests, tokens and spend per UTC date, model and endpoint: the last 30 completed days, or one date (today included)')
  @Answers(200, 'ActivityAnswer', 'Activity rows, newest date first')
  @Fails({ 400: 'A date outside the last 30 days, a bad key hash or user id', 404: 'workspace_id names another workspace' })
  async activity(
    @CurrentPrincipal() principal: Principal,
    @Query(StrictQuery) query: ActivityQueryDto,
  ): Promise<DataEnvelope<ActivityItemView[]>> {
    return { data: await this.rpc.send(AnalyticsActivity, { principal, query: { ...query } }) };
  }

  @Get('analytics/meta')
  @Doc('The metrics, dimensions, filter operators and granularities the analytics query takes')
  @Answers(200, 'AnalyticsMetaAnswer', 'What a query may name')
  meta(): DataEnvelope<AnalyticsMetaView> {
    return { data: META };
  }

  @Post('analytics/query')
  @HttpCode(200)
  @Doc('Sums of the workspace’s generations by time bucket and dimension, with filters (hourly rollups)')
  @Answers(200, 'AnalyticsQueryAnswer', 'Rows of the requested dimensions and metrics')
  @Fails({
    400: 'An unknown metric, dimension, operator or granularity, or a bad time range',
    404: 'A workspace filter names another workspace',
  })
  async query(
    @CurrentPrincipal() principal: Principal,
    @Body(StrictBody) body: AnalyticsQueryDto,
  ): Promise<DataEnvelope<AnalyticsResultView>> {
    if (body.classifier_dimensions !== undefined || body.classifier_filters !== undefined) {
      throw GatewayError.badRequest('classifier_dimensions and classifier_filters are not offered: this gateway runs no classifiers');
    }
    return { data: await this.rpc.send(AnalyticsQuery, { principal, query: body }) };
  }
}
