import type { UsageRecordedEvent } from '@gw/contracts';
import type { QueryConfig } from 'pg';

/** The user id of rollup rows of generations recorded without a user (the primary key has no nulls). */
export const NIL_USER = '00000000-0000-0000-0000-000000000000';

/**
 * Each sum a rollup row keeps: its column and its aggregate over the rows the statement inserted.
 * The hourly and the daily rollups are built from this one list, and a conflict adds each to the
 * stored value. Savings are what a hit avoided less what it was charged at the cache price.
 */
export const ROLLUP_SUMS: ReadonlyArray<readonly [column: string, aggregate: string]> = [
  ['requests', 'count(*)'],
  ['failed_requests', "count(*) FILTER (WHERE status = 'failed')"],
  ['streamed_requests', 'count(*) FILTER (WHERE streamed)'],
  ['byok_requests', 'count(*) FILTER (WHERE is_byok)'],
  ['prompt_tokens', 'sum(prompt_tokens)'],
  ['completion_tokens', 'sum(completion_tokens)'],
  ['reasoning_tokens', 'sum(reasoning_tokens)'],
  ['cached_tokens', 'sum(cached_tokens)'],
  ['cost', 'sum(cost)'],
  ['upstream_cost', 'sum(upstream_cost)'],
  ['byok_upstream_cost', 'COALESCE(sum(upstream_cost) FILTER (WHERE is_byok), 0)'],
  ['latency_ms', 'sum(latency_ms)'],
  ['cache_hits', 'count(*) FILTER (WHERE cache_hit)'],
  ['cost_avoided', 'COALESCE(sum(cost_avoided) FILTER (WHERE cache_hit), 0)'],
  ['cache_savings', 'COALESCE(sum(cost_avoided - cost) FILTER (WHERE cache_hit), 0)'],
];

/** The columns a rollup table is kept by, after workspace and time bucket. */
type RollupGrain = 'key, user and endpoint' | 'endpoint' | 'key';
const GRAIN_COLUMNS: Record<RollupGrain, Array<[column: string, value: string]>> = {
  'key, user and endpoint': [
    ['key_hash', 'key_hash'],
    ['user_id', `COALESCE(user_id, '${NIL_USER}'::uuid)`],
    ['model', 'model'],
    ['provider', 'provider'],
    ['upstream_model', 'upstream_model'],
  ],
  endpoint: [
    ['model', 'model'],
    ['provider', 'provider'],
    ['upstream_model', 'upstream_model'],
  ],
  key: [['key_hash', 'key_hash']],
};

/**
 * The upsert of one rollup table from the `inserted` rows: keyed by workspace, the time bucket
 * and the columns of its grain, written in key order so concurrent batches lock rows in one order.
 */
function rollupUpsert(table: string, bucket: string, bucketOf: string, grain: RollupGrain = 'key, user and endpoint'): string {
  const key = ['workspace_id', bucket, ...GRAIN_COLUMNS[grain].map(([column]) => column)];
  const groups = key.map((_column, index) => index + 1).join(', ');
  return `INSERT INTO ${table} AS total (${[...key, ...ROLLUP_SUMS.map(([column]) => column)].join(', ')})
    SELECT workspace_id, ${bucketOf}, ${GRAIN_COLUMNS[grain].map(([, value]) => value).join(', ')},
      ${ROLLUP_SUMS.map(([, aggregate]) => aggregate).join(', ')}
    FROM inserted
    GROUP BY ${groups}
    ORDER BY ${groups}
    ON CONFLICT (${key.join(', ')}) DO UPDATE SET
      ${ROLLUP_SUMS.map(([column]) => `${column} = total.${column} + excluded.${column}`).join(',\n      ')}`;
}

/**
 * One INSERT of any number of generation rows, the same SQL text whatever the count: each column
 * travels as one array parameter and `unnest()` turns them back into rows. Its name
 * makes node-postgres prepare it once per connection, so PostgreSQL parses and plans it once,
 * not once per batch size as the multi-row VALUES form did. A generation already recorded (a
 * redelivery) is skipped.
 *
 * The same statement adds the rows it inserted, and only those, to their hourly and daily rollups
 * (per key and user, per model alone, hourly per key alone): a redelivered event inserts nothing and
 * so adds nothing, and the five writes commit or fail together.
 *
 * `endpoints_tried` and the attempts' statuses and latencies (a list per row) travel as their own
 * array literals, cast per row; the usage details as JSON text, cast to jsonb.
 */
const INSERT_GENERATIONS = `
  WITH inserted AS (
    INSERT INTO generations (id, workspace_id, key_hash, user_id, model, provider, upstream_model, status, prompt_tokens,
      completion_tokens, cached_tokens, reasoning_tokens, tokens_estimated, cost, upstream_cost, is_byok, latency_ms,
      session_id, batch_id, attempts, endpoints_tried, usage_details, created_at, request_id, streamed, finish_reason,
      native_finish_reason, upstream_id, generation_time_ms, cancelled, service_tier, price_version, cache_hit, cost_avoided,
      cache_discount, response_cache_source_id, preset_id, router, num_media_prompt, num_input_audio_prompt, moderation_latency_ms,
      num_search_results, num_fetches, web_search_engine, http_referer, user_agent, origin, attempt_statuses, attempt_latencies_ms,
      external_user)
    SELECT r.id, r.workspace_id, r.key_hash, r.user_id, r.model, r.provider, r.upstream_model, r.status, r.prompt_tokens,
      r.completion_tokens, r.cached_tokens, r.reasoning_tokens, r.tokens_estimated, r.cost, r.upstream_cost, r.is_byok,
      r.latency_ms, r.session_id, r.batch_id, r.attempts, r.endpoints_tried::text[], r.usage_details, r.created_at, r.request_id, r.streamed,
      r.finish_reason, r.native_finish_reason, r.upstream_id, r.generation_time_ms, r.cancelled, r.service_tier,
      r.price_version, r.cache_hit, r.cost_avoided, r.cache_discount, r.response_cache_source_id, r.preset_id, r.router,
      r.num_media_prompt, r.num_input_audio_prompt, r.moderation_latency_ms, r.num_search_results, r.num_fetches,
      r.web_search_engine, r.http_referer, r.user_agent, r.origin, r.attempt_statuses::int[], r.attempt_latencies_ms::int[],
      r.external_user
    FROM unnest($1::text[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::"GenerationStatus"[],
      $9::int[], $10::int[], $11::int[], $12::int[], $13::bool[], $14::numeric[], $15::numeric[], $16::bool[], $17::int[],
      $18::text[], $19::text[], $20::int[], $21::text[], $22::jsonb[], $23::timestamptz[], $24::text[], $25::bool[],
      $26::text[], $27::text[], $28::text[], $29::int[], $30::bool[], $31::text[],
      $32::int[], $33::bool[], $34::numeric[], $35::numeric[], $36::text[], $37::text[], $38::text[], $39::int[], $40::int[],
      $41::int[], $42::int[], $43::int[], $44::text[], $45::text[], $46::text[], $47::text[], $48::text[], $49::text[], $50::text[])
      AS r(id, workspace_id, key_hash, user_id, model, provider, upstream_model, status, prompt_tokens, completion_tokens,
        cached_tokens, reasoning_tokens, tokens_estimated, cost, upstream_cost, is_byok, latency_ms, session_id, batch_id,
        attempts, endpoints_tried, usage_details, created_at, request_id, streamed, finish_reason, native_finish_reason,
        upstream_id, generation_time_ms, cancelled, service_tier, price_version, cache_hit, cost_avoided, cache_discount,
        response_cache_source_id, preset_id, router, num_media_prompt, num_input_audio_prompt, moderation_latency_ms,
        num_search_results, num_fetches, web_search_engine, http_referer, user_agent, origin, attempt_statuses, attempt_latencies_ms,
        external_user)
    ON CONFLICT DO NOTHING
    RETURNING workspace_id, key_hash, user_id, model, provider, upstream_model, status, streamed, is_byok, prompt_tokens,
      completion_tokens, reasoning_tokens, cached_tokens, cost, upstream_cost, latency_ms, created_at, cache_hit, cost_avoided
  ),
  hourly AS (
    ${rollupUpsert('generation_rollups', 'hour', "date_trunc('hour', created_at, 'UTC')")}
    RETURNING 1
  ),
  daily AS (
    ${rollupUpsert('generation_rollups_daily', 'day', "(created_at AT TIME ZONE 'UTC')::date")}
    RETURNING 1
  ),
  daily_models AS (
    ${rollupUpsert('generation_rollups_daily_models', 'day', "(created_at AT TIME ZONE 'UTC')::date", 'endpoint')}
    RETURNING 1
  )
  ${rollupUpsert('generation_rollups_hourly_keys', 'hour', "date_trunc('hour', created_at, 'UTC')", 'key')}`;

/** The statement and its 50 array parameters for these events (any number of them). */
export function insertGenerations(unordered: readonly UsageRecordedEvent[]): QueryConfig {
  // Rows in id order: two replicas inserting overlapping batches then lock the same keys in the same order (no deadlock).
  const events = [...unordered].sort((a, b) => (a.generationId < b.generationId ? -1 : a.generationId > b.generationId ? 1 : 0));
  const columns: unknown[][] = Array.from({ length: 50 }, () => new Array<unknown>(events.length));
  for (let row = 0; row < events.length; row++) {
    const event = events[row]!;
    columns[0]![row] = event.generationId;
    columns[1]![row] = event.workspaceId;
    columns[2]![row] = event.keyHash;
    columns[3]![row] = event.userId;
    columns[4]![row] = event.model;
    columns[5]![row] = event.provider;
    columns[6]![row] = event.upstreamModel;
    columns[7]![row] = event.status;
    columns[8]![row] = event.promptTokens;
    columns[9]![row] = event.completionTokens;
    columns[10]![row] = event.cachedTokens;
    columns[11]![row] = event.reasoningTokens;
    columns[12]![row] = event.tokensEstimated;
    columns[13]![row] = event.cost;
    columns[14]![row] = event.upstreamCost;
    columns[15]![row] = event.isByok;
    columns[16]![row] = event.latencyMs;
    columns[17]![row] = event.sessionId ?? null;
    columns[18]![row] = event.batchId ?? null;
    columns[19]![row] = event.attempts ?? 1;
    columns[20]![row] = textArrayLiteral(event.endpointsTried ?? []);
    columns[21]![row] = event.usageDetails ? JSON.stringify(event.usageDetails) : null;
    columns[22]![row] = timestamp(event.createdAt);
    columns[23]![row] = event.requestId ?? null;
    columns[24]![row] = event.streamed ?? null;
    columns[25]![row] = event.finishReason ?? null;
    columns[26]![row] = event.nativeFinishReason ?? null;
    columns[27]![row] = event.upstreamId ?? null;
    columns[28]![row] = event.generationTimeMs ?? null;
    columns[29]![row] = event.cancelled ?? null;
    columns[30]![row] = event.serviceTier ?? null;
    columns[31]![row] = event.priceVersion ?? null;
    columns[32]![row] = event.cacheHit === true;
    columns[33]![row] = event.costAvoided ?? null;
    columns[34]![row] = event.cacheDiscount ?? null;
    columns[35]![row] = event.responseCacheSourceId ?? null;
    columns[36]![row] = event.presetId ?? null;
    columns[37]![row] = event.router ?? null;
    columns[38]![row] = event.numMediaPrompt ?? null;
    columns[39]![row] = event.numInputAudioPrompt ?? null;
    columns[40]![row] = event.moderationLatencyMs ?? null;
    columns[41]![row] = event.numSearchResults ?? null;
    columns[42]![row] = event.numFetches ?? null;
    columns[43]![row] = event.webSearchEngine ?? null;
    columns[44]![row] = event.httpReferer ?? null;
    columns[45]![row] = event.userAgent ?? null;
    columns[46]![row] = event.origin ?? null;
    columns[47]![row] = event.attemptStatuses ? `{${event.attemptStatuses.join(',')}}` : null;
    columns[48]![row] = event.attemptLatenciesMs ? `{${event.attemptLatenciesMs.join(',')}}` : null;
    columns[49]![row] = event.externalUser ?? null;
  }
  return { name: 'inference_insert_generations_and_rollups', text: INSERT_GENERATIONS, values: columns };
}

/** A PostgreSQL array literal of texts: every element quoted, `"` and `\` escaped. */
export function textArrayLiteral(items: readonly string[]): string {
  let literal = '{';
  for (let index = 0; index < items.length; index++) {
    if (index > 0) literal += ',';
    literal += `"${items[index]!.replace(/[\\"]/g, '\\$&')}"`;
  }
  return `${literal}}`;
}

/**
 * The instant as UTC ISO text, read as JavaScript reads it (as the Prisma path did with
 * `new Date(createdAt)`, so a time without a zone stays local time, not PostgreSQL's session zone);
 * text that is no date goes as it is, for PostgreSQL to refuse.
 */
function timestamp(createdAt: string): string {
  const date = new Date(createdAt);
  return Number.isNaN(date.getTime()) ? createdAt : date.toISOString();
}
