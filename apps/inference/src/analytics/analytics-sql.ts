import {
  ANALYTICS_LIMIT_DEFAULT,
  ANALYTICS_OPERATORS,
  ANALYTICS_RANGE_DEFAULT_DAYS,
  ANALYTICS_RANGE_MAX_DAYS,
  type AnalyticsDimension,
  type AnalyticsFilterDto,
  type AnalyticsMetric,
  type AnalyticsQueryDto,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { QueryConfig } from 'pg';
import { NIL_USER } from '../generations/generation-rows.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Each dimension as an expression over `generation_rollups` (texts, so every filter compares texts). */
const DIMENSION_SQL: Record<AnalyticsDimension, string> = {
  model: 'model',
  provider: 'provider',
  endpoint: `provider || '/' || upstream_model`,
  api_key_id: 'key_hash::text',
  user: `NULLIF(user_id, '${NIL_USER}'::uuid)::text`,
  workspace: 'workspace_id::text',
  error_type: 'error_type',
};

/**
 * The columns each dimension groups by: the stored columns, so the expressions above (casts,
 * concatenation) run once per group instead of once per rollup row.
 */
const DIMENSION_GROUP: Record<AnalyticsDimension, string> = {
  model: 'model',
  provider: 'provider',
  endpoint: `provider || '/' || upstream_model`,
  api_key_id: 'key_hash',
  user: 'user_id',
  workspace: 'workspace_id',
  error_type: 'error_type',
};

/** The stored columns each dimension reads (what a union of rollups must carry). */
const DIMENSION_COLUMNS: Record<AnalyticsDimension, string[]> = {
  model: ['model'],
  provider: ['provider'],
  endpoint: ['provider', 'upstream_model'],
  api_key_id: ['key_hash'],
  user: ['user_id'],
  workspace: [],
  error_type: [],
};

/** Each stored column as the failure rollups give it: they know no provider, and '' means no model. */
const FAILURE_COLUMNS: Record<string, string> = {
  model: "NULLIF(model, '') AS model",
  provider: 'NULL::text AS provider',
  upstream_model: 'NULL::text AS upstream_model',
  key_hash: 'key_hash',
  user_id: 'user_id',
};

/** Each metric as an aggregate over the hourly rows; money and counts as exact numerics. */
const METRIC_SQL: Record<AnalyticsMetric, string> = {
  request_count: 'sum(requests)',
  // Failed generations (streams broken after their first byte) and failed requests, from the union below.
  error_count: 'sum(failures)',
  streamed_count: 'sum(streamed_requests)',
  byok_request_count: 'sum(byok_requests)',
  prompt_tokens: 'sum(prompt_tokens)',
  completion_tokens: 'sum(completion_tokens)',
  reasoning_tokens: 'sum(reasoning_tokens)',
  cached_tokens: 'sum(cached_tokens)',
  total_tokens: 'sum(prompt_tokens + completion_tokens)',
  usage: 'sum(cost)',
  upstream_cost: 'sum(upstream_cost)',
  byok_usage_inference: 'sum(byok_upstream_cost)',
  avg_latency: 'round(sum(latency_ms)::numeric / NULLIF(sum(requests), 0), 3)',
  avg_cost: 'round(sum(cost) / NULLIF(sum(requests), 0), 12)',
  error_rate: 'round(sum(failures)::numeric / NULLIF(sum(attempts), 0), 6)',
  response_cache_hits: 'sum(cache_hits)',
  response_cache_cost_avoided: 'sum(cost_avoided)',
  response_cache_savings: 'sum(cache_savings)',
};

/** The stored generation-rollup columns each metric sums (error metrics read the union's own columns). */
const METRIC_COLUMNS: Record<AnalyticsMetric, string[]> = {
  request_count: ['requests'],
  error_count: [],
  streamed_count: ['streamed_requests'],
  byok_request_count: ['byok_requests'],
  prompt_tokens: ['prompt_tokens'],
  completion_tokens: ['completion_tokens'],
  reasoning_tokens: ['reasoning_tokens'],
  cached_tokens: ['cached_tokens'],
  total_tokens: ['prompt_tokens', 'completion_tokens'],
  usage: ['cost'],
  upstream_cost: ['upstream_cost'],
  byok_usage_inference: ['byok_upstream_cost'],
  avg_latency: ['latency_ms', 'requests'],
  avg_cost: ['cost', 'requests'],
  error_rate: [],
  response_cache_hits: ['cache_hits'],
  response_cache_cost_avoided: ['cost_avoided'],
  response_cache_savings: ['cache_savings'],
};

/** What a failure (one counted per error type) can be asked for. */
const PER_ERROR_TYPE_METRICS: ReadonlySet<AnalyticsMetric> = new Set(['error_count']);

export interface PlannedQuery {
  statement: QueryConfig;
  dimensions: AnalyticsDimension[];
  metrics: AnalyticsMetric[];
  limit: number;
  withDate: boolean;
  warnings: string[];
}

/**
 * One analytics query as SQL over the hourly rollups of one workspace. Every identifier comes
 * from the fixed tables above (never from the request); every value is a parameter. A time range
 * that is not on whole hours is widened to them, with a warning: the rollups hold nothing finer.
 */
export function planAnalyticsQuery(workspaceId: string, query: AnalyticsQueryDto, now: number): PlannedQuery {
  const warnings: string[] = [];
  const { start, end } = timeRange(query, now, warnings);
  const metrics = [...new Set(query.metrics)];
  const dimensions = [...new Set(query.dimensions ?? [])];
  // Whole UTC days and no hourly buckets: the daily sums, 24 times fewer rows; per model alone
  // when nothing asks for keys or users (one row per day and endpoint, however many keys called it).
  const daily = query.granularity !== 'hour' && start % DAY_MS === 0 && end % DAY_MS === 0;
  const fields = [...dimensions, ...(query.filters ?? []).map((filter) => filter.field)];
  const perKey = fields.some((field) => field === 'api_key_id' || field === 'user');
  // Hourly, by key at most (no user, model or endpoint): one row per hour and key.
  const keysAlone = fields.every((field) => field === 'api_key_id' || field === 'workspace');
  const table = daily
    ? perKey
      ? 'generation_rollups_daily'
      : 'generation_rollups_daily_models'
    : keysAlone
      ? 'generation_rollups_hourly_keys'
      : 'generation_rollups';
  const values: unknown[] = daily
    ? [workspaceId, new Date(start).toISOString().slice(0, 10), new Date(end).toISOString().slice(0, 10)]
    : [workspaceId, new Date(start).toISOString(), new Date(end).toISOString()];
  const base = daily
    ? ['workspace_id = $1::uuid', 'day >= $2::date', 'day < $3::date']
    : ['workspace_id = $1::uuid', 'hour >= $2::timestamptz', 'hour < $3::timestamptz'];
  const filters = (query.filters ?? []).map((filter) => filterSql(filter, values, workspaceId));
  // Failures are counted from the generations (broken streams) and the failed requests' rollups together.
  const withFailures = metrics.some((metric) => metric === 'error_count' || metric === 'error_rate') || fields.includes('error_type');
  if (fields.includes('error_type')) refuseOutsideErrorTypes(metrics, query);
  const source = withFailures ? `(${unionOfFailures(table, daily, base, fields as AnalyticsDimension[], metrics)}) rollups` : table;
  const where = withFailures ? filters : [...base, ...filters];

  const columns: string[] = [];
  const groups: string[] = [];
  const withDate = query.granularity !== undefined;
  if (withDate) {
    // A bucket of the table's own grain is its column (no time zone arithmetic per row); a coarser
    // one is truncated per row, on the daily table as a plain timestamp (no zone to look up).
    const bucket = daily
      ? query.granularity === 'day'
        ? 'day'
        : `date_trunc('${query.granularity}', day::timestamp)`
      : query.granularity === 'hour'
        ? 'hour'
        : `date_trunc('${query.granularity}', hour, 'UTC')`;
    groups.push(bucket);
    columns.push(daily ? `(${bucket})::timestamp AT TIME ZONE 'UTC' AS "date"` : `${bucket} AS "date"`);
  }
  for (const dimension of dimensions) {
    groups.push(DIMENSION_GROUP[dimension]);
    columns.push(`${DIMENSION_SQL[dimension]} AS "${dimension}"`);
  }
  for (const metric of metrics) columns.push(`${METRIC_SQL[metric]}::text AS "${metric}"`);
  columns.push('sum(requests) AS "__requests"');

  const order = orderBy(query, metrics, dimensions, withDate);
  const limit = query.limit ?? ANALYTICS_LIMIT_DEFAULT;
  const grouped = `SELECT ${columns.join(', ')} FROM ${source}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}${
    groups.length > 0 ? ` GROUP BY ${[...new Set(groups)].join(', ')}` : ''
  }`;
  let text: string;
  if (query.group_limit !== undefined && dimensions.length > 0) {
    values.push(query.group_limit);
    const partition = dimensions.map((dimension) => `"${dimension}"`).join(', ');
    text = `SELECT * FROM (SELECT grouped.*, row_number() OVER (PARTITION BY ${partition} ORDER BY ${order}) AS "__rank" FROM (${grouped}) grouped) ranked
      WHERE "__rank" <= $${values.length} ORDER BY ${order} LIMIT ${limit + 1}`;
  } else {
    text = `SELECT * FROM (${grouped}) grouped ORDER BY ${order} LIMIT ${limit + 1}`;
  }
  return { statement: { text, values }, dimensions, metrics, limit, withDate, warnings };
}

/**
 * The generation rollups of `table` and the failed requests' hourly rollups as one set of rows,
 * each branch bounded by workspace and time: generations add their requests and broken streams
 * (error type null), failures add one failed attempt each and nothing else.
 */
function unionOfFailures(table: string, daily: boolean, base: string[], fields: AnalyticsDimension[], metrics: AnalyticsMetric[]): string {
  const dimensionColumns = [...new Set(fields.flatMap((field) => DIMENSION_COLUMNS[field]))];
  const metricColumns = [...new Set(['requests', ...metrics.flatMap((metric) => METRIC_COLUMNS[metric])])];
  const generations = [
    daily ? 'day' : 'hour',
    'workspace_id',
    ...dimensionColumns,
    ...metricColumns,
    'NULL::text AS error_type',
    'failed_requests AS failures',
    'requests AS attempts',
  ];
  const failures = [
    daily ? "(hour AT TIME ZONE 'UTC')::date AS day" : 'hour',
    'workspace_id',
    ...dimensionColumns.map((column) => FAILURE_COLUMNS[column]!),
    ...metricColumns.map((column) => `0 AS ${column}`),
    'error_type',
    'failures',
    'failures AS attempts',
  ];
  const failureBase = daily
    ? ['workspace_id = $1::uuid', "hour >= ($2::date)::timestamp AT TIME ZONE 'UTC'", "hour < ($3::date)::timestamp AT TIME ZONE 'UTC'"]
    : base;
  // By error type only failures count: generations that did not fail would only add an empty null group.
  const generationWhere = fields.includes('error_type') ? [...base, 'failed_requests > 0'] : base;
  return `SELECT ${generations.join(', ')} FROM ${table} WHERE ${generationWhere.join(' AND ')}
    UNION ALL SELECT ${failures.join(', ')} FROM request_failure_rollups WHERE ${failureBase.join(' AND ')}`;
}

/** Only a count of failures has a value per error type: anything else would be silently wrong, so it is refused. */
function refuseOutsideErrorTypes(metrics: AnalyticsMetric[], query: AnalyticsQueryDto): void {
  const unsupported = metrics.filter((metric) => !PER_ERROR_TYPE_METRICS.has(metric));
  if (query.order_by?.field === 'request_count' && !unsupported.includes('request_count')) unsupported.push('request_count');
  if (unsupported.length > 0) {
    throw GatewayError.badRequest(
      `error_type (as a dimension or filter) combines only with error_count; ${unsupported.join(', ')} ${
        unsupported.length === 1 ? 'has' : 'have'
      } no value per error type`,
    );
  }
}

function timeRange(query: AnalyticsQueryDto, now: number, warnings: string[]): { start: number; end: number } {
  const asked = query.time_range;
  // By default the last 30 days: to the coming hour in hourly buckets, else whole days up to the end of today.
  const hourly = query.granularity === 'hour';
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  let start = asked
    ? Date.parse(asked.start)
    : hourly
      ? Math.floor(now / HOUR_MS) * HOUR_MS - ANALYTICS_RANGE_DEFAULT_DAYS * DAY_MS
      : today - ANALYTICS_RANGE_DEFAULT_DAYS * DAY_MS;
  let end = asked ? Date.parse(asked.end) : hourly ? Math.ceil(now / HOUR_MS) * HOUR_MS : today + DAY_MS;
  if (Number.isNaN(start) || Number.isNaN(end)) throw GatewayError.badRequest('time_range must hold valid UTC times');
  if (end <= start) throw GatewayError.badRequest('time_range.end must be after time_range.start');
  if (end - start > ANALYTICS_RANGE_MAX_DAYS * DAY_MS)
    throw GatewayError.badRequest(`time_range may cover at most ${ANALYTICS_RANGE_MAX_DAYS} days`);
  const wholeStart = Math.floor(start / HOUR_MS) * HOUR_MS;
  const wholeEnd = Math.ceil(end / HOUR_MS) * HOUR_MS;
  if (wholeStart !== start || wholeEnd !== end) {
    warnings.push(
      `time_range widened to whole UTC hours (${new Date(wholeStart).toISOString()} to ${new Date(wholeEnd).toISOString()}): usage is kept in hourly sums`,
    );
  }
  start = wholeStart;
  end = wholeEnd;
  return { start, end };
}

function filterSql(filter: AnalyticsFilterDto, values: unknown[], workspaceId: string): string {
  const expression = DIMENSION_SQL[filter.field];
  const array = ANALYTICS_OPERATORS[filter.operator] === 'array';
  if (array !== Array.isArray(filter.value)) {
    throw GatewayError.badRequest(`filters: ${filter.operator} takes ${array ? 'an array' : 'a single value'} (field ${filter.field})`);
  }
  const items = (Array.isArray(filter.value) ? filter.value : [filter.value]).map(String);
  if (filter.field === 'workspace' && filter.operator !== 'neq' && filter.operator !== 'not_in' && items.some((id) => id !== workspaceId)) {
    throw new GatewayError(404, 'No workspace with that id is visible to this API key', {
      metadata: { reason: 'not_found', retryable: false },
    });
  }
  const unset = filter.include_unset === true && array ? ` OR ${expression} IS NULL` : '';
  values.push(array ? items : items[0]);
  const parameter = `$${values.length}`;
  switch (filter.operator) {
    case 'eq':
      return `${expression} = ${parameter}::text`;
    case 'neq':
      return `${expression} IS DISTINCT FROM ${parameter}::text`;
    case 'in':
      return `(${expression} = ANY(${parameter}::text[])${unset})`;
    case 'not_in':
      return `(NOT COALESCE(${expression} = ANY(${parameter}::text[]), false)${unset})`;
  }
}

/** The requested order, then every group column so pages of equal values come out the same each time. */
function orderBy(query: AnalyticsQueryDto, metrics: AnalyticsMetric[], dimensions: AnalyticsDimension[], withDate: boolean): string {
  const keys: string[] = [];
  const asked = query.order_by;
  if (asked) {
    const field = asked.field;
    const allowed =
      (field === 'date' && withDate) ||
      field === 'request_count' ||
      (metrics as string[]).includes(field) ||
      (dimensions as string[]).includes(field);
    if (!allowed) {
      throw GatewayError.badRequest(
        'order_by.field must be a requested metric, request_count, a requested dimension or date (with a granularity)',
      );
    }
    const column = field === 'request_count' && !(metrics as string[]).includes(field) ? '__requests' : field;
    const numeric = column === '__requests' || (metrics as string[]).includes(column);
    keys.push(`${numeric ? `"${column}"::numeric` : `"${column}"`} ${asked.direction.toUpperCase()} NULLS LAST`);
  } else if (withDate) {
    keys.push('"date" ASC');
  }
  if (!asked || asked.field !== 'request_count') keys.push('"__requests" DESC');
  if (withDate) keys.push('"date" ASC');
  for (const dimension of dimensions) keys.push(`"${dimension}" ASC NULLS FIRST`);
  return keys.join(', ');
}
