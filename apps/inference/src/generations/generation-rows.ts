import type { UsageRecordedEvent } from '@gw/contracts';
import type { QueryConfig } from 'pg';

/**
 * One INSERT of any number of generation rows, the same SQL text whatever the count: each column
 * travels as one array parameter and `unnest()` turns them back into rows (ADR 0081). Its name
 * makes node-postgres prepare it once per connection, so PostgreSQL parses and plans it once,
 * not once per batch size as the multi-row VALUES form did. A generation already recorded (a
 * redelivery) is skipped.
 *
 * The same statement adds the rows it inserted, and only those, to their hourly and daily rollups:
 * a redelivered event inserts nothing and so adds nothing, and the three writes commit or fail
 * together. Rollup rows are written in key order so concurrent batches lock them in one order.
 *
 * `endpoints_tried` (a list per row) travels as its own array literal, cast per row; the usage
 * details as JSON text, cast to jsonb.
 */
const INSERT_GENERATIONS = `
  WITH inserted AS (
    INSERT INTO generations (id, workspace_id, key_hash, user_id, model, provider, upstream_model, status, prompt_tokens,
      completion_tokens, cached_tokens, reasoning_tokens, tokens_estimated, cost, upstream_cost, is_byok, latency_ms,
      session_id, batch_id, attempts, endpoints_tried, usage_details, created_at, request_id, streamed, finish_reason,
      native_finish_reason, upstream_id, generation_time_ms, cancelled, service_tier, price_version, cache_hit, cost_avoided)
    SELECT r.id, r.workspace_id, r.key_hash, r.user_id, r.model, r.provider, r.upstream_model, r.status, r.prompt_tokens,
      r.completion_tokens, r.cached_tokens, r.reasoning_tokens, r.tokens_estimated, r.cost, r.upstream_cost, r.is_byok,
      r.latency_ms, r.session_id, r.batch_id, r.attempts, r.endpoints_tried::text[], r.usage_details, r.created_at, r.request_id, r.streamed,
      r.finish_reason, r.native_finish_reason, r.upstream_id, r.generation_time_ms, r.cancelled, r.service_tier,
      r.price_version, r.cache_hit, r.cost_avoided
    FROM unnest($1::text[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::"GenerationStatus"[],
      $9::int[], $10::int[], $11::int[], $12::int[], $13::bool[], $14::numeric[], $15::numeric[], $16::bool[], $17::int[],
      $18::text[], $19::text[], $20::int[], $21::text[], $22::jsonb[], $23::timestamptz[], $24::text[], $25::bool[],
      $26::text[], $27::text[], $28::text[], $29::int[], $30::bool[], $31::text[],
      $32::int[], $33::bool[], $34::numeric[])
      AS r(id, workspace_id, key_hash, user_id, model, provider, upstream_model, status, prompt_tokens, completion_tokens,
        cached_tokens, reasoning_tokens, tokens_estimated, cost, upstream_cost, is_byok, latency_ms, session_id, batch_id,
        attempts, endpoints_tried, usage_details, created_at, request_id, streamed, finish_reason, native_finish_reason,
        upstream_id, generation_time_ms, cancelled, service_tier, price_version, cache_hit, cost_avoided)
    ON CONFLICT DO NOTHING
    RETURNING workspace_id, key_hash, user_id, model, provider, upstream_model, status, streamed, is_byok, prompt_tokens,
      completion_tokens, reasoning_tokens, cached_tokens, cost, upstream_cost, latency_ms, created_at
  ),
  hourly AS (
    INSERT INTO generation_rollups AS total (workspace_id, hour, key_hash, user_id, model, provider, upstream_model, requests,
      failed_requests, streamed_requests, byok_requests, prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens,
      cost, upstream_cost, byok_upstream_cost, latency_ms)
    SELECT workspace_id, date_trunc('hour', created_at, 'UTC'), key_hash,
      COALESCE(user_id, '00000000-0000-0000-0000-000000000000'::uuid), model, provider, upstream_model,
      count(*), count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE streamed), count(*) FILTER (WHERE is_byok),
      sum(prompt_tokens), sum(completion_tokens), sum(reasoning_tokens), sum(cached_tokens),
      sum(cost), sum(upstream_cost), COALESCE(sum(upstream_cost) FILTER (WHERE is_byok), 0), sum(latency_ms)
    FROM inserted
    GROUP BY 1, 2, 3, 4, 5, 6, 7
    ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (workspace_id, hour, key_hash, user_id, model, provider, upstream_model) DO UPDATE SET
      requests = total.requests + excluded.requests,
      failed_requests = total.failed_requests + excluded.failed_requests,
      streamed_requests = total.streamed_requests + excluded.streamed_requests,
      byok_requests = total.byok_requests + excluded.byok_requests,
      prompt_tokens = total.prompt_tokens + excluded.prompt_tokens,
      completion_tokens = total.completion_tokens + excluded.completion_tokens,
      reasoning_tokens = total.reasoning_tokens + excluded.reasoning_tokens,
      cached_tokens = total.cached_tokens + excluded.cached_tokens,
      cost = total.cost + excluded.cost,
      upstream_cost = total.upstream_cost + excluded.upstream_cost,
      byok_upstream_cost = total.byok_upstream_cost + excluded.byok_upstream_cost,
      latency_ms = total.latency_ms + excluded.latency_ms
    RETURNING 1
  )
  INSERT INTO generation_rollups_daily AS total (workspace_id, day, key_hash, user_id, model, provider, upstream_model, requests,
    failed_requests, streamed_requests, byok_requests, prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens,
    cost, upstream_cost, byok_upstream_cost, latency_ms)
  SELECT workspace_id, (created_at AT TIME ZONE 'UTC')::date, key_hash,
    COALESCE(user_id, '00000000-0000-0000-0000-000000000000'::uuid), model, provider, upstream_model,
    count(*), count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE streamed), count(*) FILTER (WHERE is_byok),
    sum(prompt_tokens), sum(completion_tokens), sum(reasoning_tokens), sum(cached_tokens),
    sum(cost), sum(upstream_cost), COALESCE(sum(upstream_cost) FILTER (WHERE is_byok), 0), sum(latency_ms)
  FROM inserted
  GROUP BY 1, 2, 3, 4, 5, 6, 7
  ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (workspace_id, day, key_hash, user_id, model, provider, upstream_model) DO UPDATE SET
    requests = total.requests + excluded.requests,
    failed_requests = total.failed_requests + excluded.failed_requests,
    streamed_requests = total.streamed_requests + excluded.streamed_requests,
    byok_requests = total.byok_requests + excluded.byok_requests,
    prompt_tokens = total.prompt_tokens + excluded.prompt_tokens,
    completion_tokens = total.completion_tokens + excluded.completion_tokens,
    reasoning_tokens = total.reasoning_tokens + excluded.reasoning_tokens,
    cached_tokens = total.cached_tokens + excluded.cached_tokens,
    cost = total.cost + excluded.cost,
    upstream_cost = total.upstream_cost + excluded.upstream_cost,
    byok_upstream_cost = total.byok_upstream_cost + excluded.byok_upstream_cost,
    latency_ms = total.latency_ms + excluded.latency_ms`;

/** The statement and its 34 array parameters for these events (any number of them). */
export function insertGenerations(unordered: readonly UsageRecordedEvent[]): QueryConfig {
  // Rows in id order: two replicas inserting overlapping batches then lock the same keys in the same order (no deadlock).
  const events = [...unordered].sort((a, b) => (a.generationId < b.generationId ? -1 : a.generationId > b.generationId ? 1 : 0));
  const columns: unknown[][] = Array.from({ length: 34 }, () => new Array<unknown>(events.length));
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
