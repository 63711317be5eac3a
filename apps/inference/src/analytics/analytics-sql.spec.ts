import type { AnalyticsQueryDto } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { planAnalyticsQuery } from './analytics-sql.js';

const WORKSPACE = '11111111-1111-4111-8111-111111111111';
const NOW = Date.parse('2026-11-28T12:34:56Z');
const plan = (query: Partial<AnalyticsQueryDto>) =>
  planAnalyticsQuery(WORKSPACE, { metrics: ['usage'], ...query } as AnalyticsQueryDto, NOW);
const refusal = (query: Partial<AnalyticsQueryDto>) => {
  try {
    plan(query);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected a refusal');
};

describe('planAnalyticsQuery', () => {
  it('reads only the daily rollups of the workspace, the last 30 days and today, by default', () => {
    const planned = plan({});
    // Per model alone (no key or user asked for): one row per day and endpoint.
    expect(planned.statement.text).toContain('FROM generation_rollups_daily_models WHERE workspace_id = $1::uuid AND day >= $2::date');
    expect(plan({ dimensions: ['model', 'endpoint'] }).statement.text).toContain('FROM generation_rollups_daily_models WHERE');
    expect(plan({ dimensions: ['user'] }).statement.text).toContain('FROM generation_rollups_daily WHERE');
    expect(plan({ filters: [{ field: 'api_key_id', operator: 'eq', value: 'a'.repeat(64) }] }).statement.text).toContain(
      'FROM generation_rollups_daily WHERE',
    );
    expect(planned.statement.text).not.toContain('FROM generations');
    expect(planned.statement.values).toEqual([WORKSPACE, '2026-10-29', '2026-11-29']);
    expect(planned.warnings).toEqual([]);
  });

  it('reads the hourly rollups for hourly buckets or a range that is not whole days', () => {
    // By key at most: the hourly sums per key alone; anything by user, model or endpoint: the full hourly rollups.
    const hourly = plan({ granularity: 'hour' });
    expect(hourly.statement.text).toContain(
      'FROM generation_rollups_hourly_keys WHERE workspace_id = $1::uuid AND hour >= $2::timestamptz',
    );
    expect(plan({ granularity: 'hour', dimensions: ['api_key_id'] }).statement.text).toContain('FROM generation_rollups_hourly_keys WHERE');
    expect(plan({ granularity: 'hour', dimensions: ['model'] }).statement.text).toContain('FROM generation_rollups WHERE');
    expect(
      plan({ granularity: 'hour', dimensions: ['api_key_id'], filters: [{ field: 'user', operator: 'eq', value: 'u' }] }).statement.text,
    ).toContain('FROM generation_rollups WHERE');
    expect(hourly.statement.values).toEqual([WORKSPACE, '2026-10-29T12:00:00.000Z', '2026-11-28T13:00:00.000Z']);
    const partDay = plan({ granularity: 'day', time_range: { start: '2026-11-27T06:00:00Z', end: '2026-11-28T00:00:00Z' } });
    expect(partDay.statement.text).toContain('FROM generation_rollups_hourly_keys WHERE');
    const wholeDays = plan({ granularity: 'week', time_range: { start: '2026-11-01T00:00:00Z', end: '2026-11-28T00:00:00Z' } });
    expect(wholeDays.statement.text).toContain(`(date_trunc('week', day::timestamp))::timestamp AT TIME ZONE 'UTC' AS "date"`);
    expect(wholeDays.statement.text).toContain(`GROUP BY date_trunc('week', day::timestamp)`);
    // Hourly buckets of the hourly table are its own hours: no time zone arithmetic per row.
    expect(hourly.statement.text).toMatch(/^SELECT \* FROM \(SELECT hour AS "date", /);
    expect(hourly.statement.text).toContain('GROUP BY hour');
    expect(partDay.statement.text).toContain(`GROUP BY date_trunc('day', hour, 'UTC')`);
    expect(wholeDays.statement.text).toContain('FROM generation_rollups_daily_models WHERE');
  });

  it('widens a range that is not on whole hours, with a warning', () => {
    const planned = plan({ time_range: { start: '2026-11-27T10:15:00Z', end: '2026-11-27T11:00:00Z' } });
    expect(planned.statement.values!.slice(1, 3)).toEqual(['2026-11-27T10:00:00.000Z', '2026-11-27T11:00:00.000Z']);
    expect(planned.warnings[0]).toMatch(/widened to whole UTC hours/);
  });

  it('groups by the time bucket and dimensions, orders by date then every group column', () => {
    const planned = plan({ granularity: 'day', dimensions: ['model', 'api_key_id'], metrics: ['usage', 'request_count'] });
    expect(planned.statement.text).toContain(`(day)::timestamp AT TIME ZONE 'UTC' AS "date"`);
    // By the stored columns: the cast to text and the date conversion run once per group.
    expect(planned.statement.text).toContain('key_hash::text AS "api_key_id"');
    expect(planned.statement.text).toContain('GROUP BY day, model, key_hash');
    expect(planned.statement.text).toMatch(
      /ORDER BY "date" ASC, "__requests" DESC, "date" ASC, "model" ASC NULLS FIRST, "api_key_id" ASC NULLS FIRST LIMIT 1001/,
    );
  });

  it('turns filters into parameters, never into SQL text', () => {
    const planned = plan({
      filters: [
        { field: 'model', operator: 'in', value: ["x'); DROP TABLE generations; --", 'b'] },
        { field: 'api_key_id', operator: 'neq', value: 'a'.repeat(64) },
        { field: 'user', operator: 'not_in', value: ['u'], include_unset: true },
      ],
    });
    expect(planned.statement.text).not.toContain('DROP');
    expect(planned.statement.values!.slice(3)).toEqual([["x'); DROP TABLE generations; --", 'b'], 'a'.repeat(64), ['u']]);
    expect(planned.statement.text).toContain('model = ANY($4::text[])');
    expect(planned.statement.text).toContain('key_hash::text IS DISTINCT FROM $5::text');
    expect(planned.statement.text).toMatch(/NOT COALESCE\(.* = ANY\(\$6::text\[\]\), false\) OR .* IS NULL/);
  });

  it('keeps a group limit per combination of dimensions', () => {
    const planned = plan({ granularity: 'hour', dimensions: ['provider'], group_limit: 3 });
    expect(planned.statement.text).toContain('row_number() OVER (PARTITION BY "provider"');
    expect(planned.statement.values!.at(-1)).toBe(3);
  });

  it('refuses a bad range, a value of the wrong arity, an order by something not asked for, another workspace', () => {
    expect(refusal({ time_range: { start: '2026-11-27T00:00:00Z', end: '2026-11-26T00:00:00Z' } }).status).toBe(400);
    expect(refusal({ time_range: { start: '2024-01-01T00:00:00Z', end: '2026-01-01T00:00:00Z' } }).status).toBe(400);
    expect(refusal({ filters: [{ field: 'model', operator: 'in', value: 'x' }] }).status).toBe(400);
    expect(refusal({ filters: [{ field: 'model', operator: 'eq', value: ['x'] }] }).status).toBe(400);
    expect(refusal({ order_by: { field: 'cost', direction: 'asc' } }).status).toBe(400);
    expect(refusal({ order_by: { field: 'date', direction: 'asc' } }).status).toBe(400);
    expect(refusal({ filters: [{ field: 'workspace', operator: 'eq', value: '22222222-2222-4222-8222-222222222222' }] }).status).toBe(404);
    expect(plan({ filters: [{ field: 'workspace', operator: 'eq', value: WORKSPACE }] }).statement.values![3]).toBe(WORKSPACE);
  });

  it('orders by request_count without it being requested', () => {
    const planned = plan({ dimensions: ['model'], order_by: { field: 'request_count', direction: 'asc' } });
    expect(planned.statement.text).toMatch(/ORDER BY "__requests"::numeric ASC NULLS LAST, "model"/);
  });

  it('counts failures from the broken streams and the failed requests together, only when asked for', () => {
    expect(plan({ metrics: ['usage', 'request_count'] }).statement.text).not.toContain('request_failure_rollups');
    const daily = plan({ metrics: ['error_count', 'request_count'], dimensions: ['model'] });
    expect(daily.statement.text).toContain(
      'FROM (SELECT day, workspace_id, model, requests, NULL::text AS error_type, failed_requests AS failures',
    );
    expect(daily.statement.text).toContain('FROM generation_rollups_daily_models WHERE workspace_id = $1::uuid AND day >= $2::date');
    // Failures know no provider and keep '' for no model; the daily branch buckets their hours by UTC day.
    expect(daily.statement.text).toContain(
      `UNION ALL SELECT (hour AT TIME ZONE 'UTC')::date AS day, workspace_id, NULLIF(model, '') AS model, 0 AS requests, error_type, failures`,
    );
    expect(daily.statement.text).toContain(
      `FROM request_failure_rollups WHERE workspace_id = $1::uuid AND hour >= ($2::date)::timestamp AT TIME ZONE 'UTC'`,
    );
    expect(daily.statement.text).toContain('sum(failures)::text AS "error_count"');
    const rate = plan({ metrics: ['error_rate'], granularity: 'hour', dimensions: ['endpoint'] });
    expect(rate.statement.text).toContain('round(sum(failures)::numeric / NULLIF(sum(attempts), 0), 6)');
    expect(rate.statement.text).toContain('NULL::text AS provider, NULL::text AS upstream_model');
    expect(rate.statement.text).toContain('FROM request_failure_rollups WHERE workspace_id = $1::uuid AND hour >= $2::timestamptz');
  });

  it('groups and filters failures by error type, applying filters to both sources', () => {
    const planned = plan({
      metrics: ['error_count'],
      dimensions: ['error_type'],
      filters: [{ field: 'error_type', operator: 'in', value: ['rate_limit_exceeded'], include_unset: true }],
    });
    expect(planned.statement.text).toContain('error_type AS "error_type"');
    expect(planned.statement.text).toContain('GROUP BY error_type');
    expect(planned.statement.text).toMatch(/AND failed_requests > 0\s+UNION ALL/);
    expect(planned.statement.text).toContain(') rollups WHERE (error_type = ANY($4::text[]) OR error_type IS NULL)');
    expect(planned.statement.values![3]).toEqual(['rate_limit_exceeded']);
  });

  it('refuses, naming them, the metrics that have no value per error type', () => {
    const byType = { dimensions: ['error_type' as const] };
    const error = refusal({ ...byType, metrics: ['error_count', 'usage', 'total_tokens'] });
    expect(error.status).toBe(400);
    expect(error.errorType).toBe('invalid_request');
    expect(error.message).toBe(
      'error_type (as a dimension or filter) combines only with error_count; usage, total_tokens have no value per error type',
    );
    expect(refusal({ metrics: ['error_rate'], filters: [{ field: 'error_type', operator: 'eq', value: 'server' }] }).message).toMatch(
      /error_rate has no value per error type/,
    );
    expect(refusal({ ...byType, metrics: ['error_count'], order_by: { field: 'request_count', direction: 'desc' } }).message).toMatch(
      /request_count has no value/,
    );
    expect(plan({ ...byType, metrics: ['error_count'] }).metrics).toEqual(['error_count']);
  });
});
