import { Injectable } from '@nestjs/common';
import {
  ANALYTICS_METRICS,
  type ActivityItemView,
  type ActivityQueryDto,
  type AnalyticsQueryDto,
  type AnalyticsResultView,
  type AnalyticsRow,
  type Principal,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { PrismaService } from '../prisma/prisma.service.js';
import { planAnalyticsQuery } from './analytics-sql.js';

const DAY_MS = 24 * 3_600_000;
/** Completed UTC days `GET /v1/activity` covers without a date (today can be asked for by date). */
const ACTIVITY_DAYS = 30;

/**
 * Activity by date, model and endpoint, summed from the daily rollups of the caller's workspace
 * (the `(workspace_id, day, ...)` primary key bounds the scan): per model alone without a key or
 * user filter (one row per day and endpoint), else per key and user. Grouped by the stored day:
 * the date is formatted once per group, not once per rollup row.
 */
const activitySql = (table: string, where: string) => `
  SELECT to_char(day, 'YYYY-MM-DD') AS date, model, provider, upstream_model,
    sum(cost)::text AS usage, sum(byok_upstream_cost)::text AS byok, sum(requests)::text AS requests,
    sum(prompt_tokens)::text AS prompt_tokens, sum(completion_tokens)::text AS completion_tokens,
    sum(reasoning_tokens)::text AS reasoning_tokens, sum(cache_hits)::text AS cache_hits, sum(cache_savings)::text AS cache_savings
  FROM ${table}
  WHERE workspace_id = $1::uuid AND day >= $2::date AND day < $3::date${where}
  GROUP BY day, model, provider, upstream_model
  ORDER BY day DESC, sum(cost) DESC, 2, 3, 4`;
const ACTIVITY = activitySql('generation_rollups_daily_models', '');
const ACTIVITY_BY_KEY_OR_USER = activitySql(
  'generation_rollups_daily',
  ' AND ($4::text IS NULL OR key_hash = $4) AND ($5::uuid IS NULL OR user_id = $5)',
);

interface ActivityRow {
  date: string;
  model: string;
  provider: string;
  upstream_model: string;
  usage: string;
  byok: string;
  requests: string;
  prompt_tokens: string;
  completion_tokens: string;
  reasoning_tokens: string;
  cache_hits: string;
  cache_savings: string;
}

/** `inference.analytics.*`: the analytics query and activity, from rollups only (never the generation rows). */
@Injectable()
export class AnalyticsService {
  constructor(private readonly prisma: PrismaService) {}

  async query(principal: Principal, query: AnalyticsQueryDto, now = Date.now()): Promise<AnalyticsResultView> {
    requireManagementKey(principal);
    const started = performance.now();
    const plan = planAnalyticsQuery(principal.workspaceId, query, now);
    const { rows } = await this.prisma.pool.query<Record<string, string | Date | null>>(plan.statement);
    const truncated = rows.length > plan.limit;
    const data = rows.slice(0, plan.limit).map((row) => {
      const out: AnalyticsRow = {};
      if (plan.withDate) out.date = (row.date as Date).toISOString();
      for (const dimension of plan.dimensions) out[dimension] = row[dimension] as string | null;
      for (const metric of plan.metrics) {
        const value = row[metric] as string | null;
        out[metric] = value === null ? (ANALYTICS_METRICS[metric].rate ? null : 0) : Number(value);
      }
      return out;
    });
    return {
      data,
      metadata: { query_time_ms: Math.round((performance.now() - started) * 1000) / 1000, row_count: data.length, truncated },
      ...(plan.warnings.length > 0 ? { warnings: plan.warnings } : {}),
    };
  }

  async activity(principal: Principal, query: ActivityQueryDto, now = Date.now()): Promise<ActivityItemView[]> {
    requireManagementKey(principal);
    if (query.workspace_id !== undefined && query.workspace_id !== principal.workspaceId) {
      throw new GatewayError(404, 'No workspace with that id is visible to this API key', {
        metadata: { reason: 'not_found', retryable: false },
      });
    }
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    let start = today - ACTIVITY_DAYS * DAY_MS;
    let end = today;
    if (query.date !== undefined) {
      const day = Date.parse(`${query.date}T00:00:00Z`);
      if (Number.isNaN(day) || day < start || day > today) {
        throw GatewayError.badRequest(`date must be one of the last ${ACTIVITY_DAYS} completed UTC days, or today`);
      }
      start = day;
      end = day + DAY_MS;
    }
    const days = [principal.workspaceId, new Date(start).toISOString().slice(0, 10), new Date(end).toISOString().slice(0, 10)];
    const { rows } = await this.prisma.pool.query<ActivityRow>(
      query.api_key_hash === undefined && query.user_id === undefined
        ? { name: 'inference_activity_daily_models', text: ACTIVITY, values: days }
        : {
            name: 'inference_activity_daily',
            text: ACTIVITY_BY_KEY_OR_USER,
            values: [...days, query.api_key_hash ?? null, query.user_id ?? null],
          },
    );
    return rows.map((row) => ({
      date: row.date,
      model: row.model,
      model_permaslug: row.model,
      endpoint_id: `${row.provider}/${row.upstream_model}`,
      provider_name: row.provider,
      usage: Number(row.usage),
      byok_usage_inference: Number(row.byok),
      requests: Number(row.requests),
      prompt_tokens: Number(row.prompt_tokens),
      completion_tokens: Number(row.completion_tokens),
      reasoning_tokens: Number(row.reasoning_tokens),
      response_cache_hits: Number(row.cache_hits),
      response_cache_savings: Number(row.cache_savings),
      ...(query.group_by === 'workspace' ? { workspace_id: principal.workspaceId } : {}),
    }));
  }
}

/** The SDK documents both routes as management-key only (the edge checks it first, too). */
function requireManagementKey(principal: Principal): void {
  if (principal.keyKind !== 'management') {
    throw new GatewayError(403, 'Only management keys may read activity and analytics', {
      errorType: 'permission_denied',
      metadata: { reason: 'management_key_required' },
    });
  }
}
