import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type ActivityItemView,
  type AnalyticsResultView,
  ActivityRequest,
  AnalyticsActivity,
  AnalyticsQuery,
  AnalyticsQueryRequest,
} from '@gw/contracts';
import { AnalyticsService } from './analytics.service.js';

/** `POST /v1/analytics/query` and `GET /v1/activity`: sums of the workspace's generations, from the rollups. */
@Controller()
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @MessagePattern(AnalyticsQuery.subject)
  query(@Payload() request: AnalyticsQueryRequest): Promise<AnalyticsResultView> {
    return this.analytics.query(request.principal, request.query);
  }

  @MessagePattern(AnalyticsActivity.subject)
  activity(@Payload() request: ActivityRequest): Promise<ActivityItemView[]> {
    return this.analytics.activity(request.principal, request.query);
  }
}
