import type { IsolatedStack } from '@gw/stack';
import pg from 'pg';
import { below, type Goal } from './goals.ts';
import { percentile } from './stats.ts';

/** What the generations scenario measured (issue 31 item 4). */
export interface GenerationsScenarioResult {
  rows: number;
  seedSeconds: number;
  disk: {
    /** Heap, TOAST and indexes of every daily partition of `generations`. */
    generationsBytes: number;
    generationsBytesPerMillionRows: number;
    partitions: number;
    rollupRows: number;
    rollupBytes: number;
  };
  /** p50 / p95 in ms of each request shape, over `samples` sequential requests each. */
  list: Record<string, ShapeFigures>;
  analytics: Record<string, ShapeFigures>;
  goals: Goal[];
  problems: string[];
}

interface ShapeFigures {
  samples: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

const DAYS = 30;
const KEYS = 100;
const MODELS = 20;
const SEED_CHUNK = 500_000;
const SAMPLES = 40;
const WARMUP = 5;
const GOAL_MS = 300;

const keyHash = (index: number) => index.toString(16).padStart(2, '0').repeat(32);
/** One key in ten thousand generations: a list by it reads through many rows between matches without an index. */
const RARE_KEY = 'ff'.repeat(32);

/**
 * `rows` generations written straight into the run's inference database (server-side
 * generate_series, spread over the last 30 days: 100 keys, each using 3 of 20 models, one key
 * rare), the hourly rollups summed from them as the writer would have, then the list and the
 * analytics through the gateway with the seeded management key, one request at a time: p50/p95
 * per request shape, and the disk the rows take per million. Goal: p95 < 300 ms for every shape.
 */
export async function generationsScenario(stack: IsolatedStack, rows: number, signal: AbortSignal): Promise<GenerationsScenarioResult> {
  const database = new pg.Client({ connectionString: stack.inferenceDatabaseUrl });
  await database.connect();
  try {
    const seedStart = performance.now();
    await seed(database, stack.workspaceId, rows, signal);
    const seedSeconds = Math.round((performance.now() - seedStart) / 100) / 10;
    await database.query('ANALYZE generations');
    await database.query('ANALYZE generation_rollups');
    await database.query('ANALYZE generation_rollups_daily');
    await database.query('ANALYZE generation_rollups_daily_models');
    await database.query('ANALYZE generation_rollups_hourly_keys');
    const disk = await diskOf(database, rows);

    const get = (path: string) => timed(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${stack.managementKey}` }, signal });
    const post = (path: string, body: unknown) =>
      timed(`${stack.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.managementKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      });
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();
    const hour = (hoursAgo: number) => new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - hoursAgo * 3_600_000).toISOString();

    const list: Record<string, ShapeFigures> = {
      newest: await shape(() => get('/generations?limit=50')),
      deepCursor: await cursorWalk(get, '/generations?limit=50', 20),
      commonKey: await shape(() => get(`/generations?key_hash=${keyHash(1)}`)),
      rareKey: await shape(() => get(`/generations?key_hash=${RARE_KEY}`)),
      model: await shape(() => get('/generations?model=sim/bench-model-7')),
      dayWindow: await shape(() => get(`/generations?from=${day(3)}&to=${day(2)}`)),
      failed: await shape(() => get('/generations?status=failed')),
      costAbove: await shape(() => get('/generations?cost_gt=0.00099')),
    };
    const analytics: Record<string, ShapeFigures> = {
      totals30Days: await shape(() => post('/analytics/query', { metrics: ['request_count', 'usage', 'total_tokens'] })),
      dailyByModel: await shape(() =>
        post('/analytics/query', { metrics: ['usage', 'request_count'], dimensions: ['model'], granularity: 'day' }),
      ),
      hourlyByKeyDay: await shape(() =>
        post('/analytics/query', {
          metrics: ['usage', 'prompt_tokens', 'completion_tokens'],
          dimensions: ['api_key_id'],
          granularity: 'hour',
          time_range: { start: hour(24), end: hour(0) },
        }),
      ),
      oneKeyByDay: await shape(() =>
        post('/analytics/query', {
          metrics: ['usage', 'byok_usage_inference', 'error_rate'],
          granularity: 'day',
          filters: [{ field: 'api_key_id', operator: 'eq', value: keyHash(2) }],
        }),
      ),
      activity: await shape(() => get('/activity')),
    };
    const problems: string[] = [];
    const goals = [...Object.entries(list), ...Object.entries(analytics)].map(([name, figures]) => {
      if (figures.samples === 0) problems.push(`generations scenario: ${name} answered no sample`);
      return below(`generations ${name} p95 (${rows.toLocaleString('en')} rows)`, figures.p95Ms, GOAL_MS, 'ms');
    });
    return { rows, seedSeconds, disk, list, analytics, goals, problems };
  } finally {
    await database.end();
  }
}

/**
 * The rows are written with the table's indexes and primary key dropped, which are then built
 * again from their own definitions (as the migrations made them): a B-tree built once is several
 * times cheaper than one grown row by row. Built indexes are packed (fill factor 90); ones grown by
 * random inserts (the key index) run up to ~30 % larger, so the disk figure is a lower bound.
 */
async function seed(database: pg.Client, workspaceId: string, rows: number, signal: AbortSignal): Promise<void> {
  const now = Date.now();
  for (let day = 0; day <= DAYS + 1; day++) {
    await database.query('SELECT generation_partition_for($1::date)', [new Date(now - day * 86_400_000).toISOString().slice(0, 10)]);
  }
  await database.query(`SET maintenance_work_mem = '256MB'`);
  const indexes = await database.query<{ name: string; definition: string; constraint: boolean }>(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition, con.oid IS NOT NULL AS constraint
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid
     WHERE i.indrelid = 'generations'::regclass`,
  );
  const constraints = await database.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
     WHERE conrelid = 'generations'::regclass AND contype IN ('p', 'u')`,
  );
  for (const { name } of constraints.rows) await database.query(`ALTER TABLE generations DROP CONSTRAINT "${name}"`);
  for (const index of indexes.rows) if (!index.constraint) await database.query(`DROP INDEX "${index.name}"`);
  for (let start = 1; start <= rows; start += SEED_CHUNK) {
    signal.throwIfAborted();
    const end = Math.min(rows, start + SEED_CHUNK - 1);
    // g spreads evenly over the 30 days; key k uses models 3k..3k+2 (mod 20); one row in 10,000 is the rare key's.
    await database.query(
      `INSERT INTO generations (id, workspace_id, key_hash, user_id, model, provider, upstream_model, status, prompt_tokens,
         completion_tokens, cached_tokens, reasoning_tokens, tokens_estimated, cost, upstream_cost, is_byok, latency_ms,
         attempts, endpoints_tried, created_at, request_id, streamed, finish_reason, upstream_id, generation_time_ms)
       SELECT 'gen-bench-' || g, $1::uuid, CASE WHEN g % 10000 = 0 THEN $5 ELSE repeat(lpad(to_hex(k), 2, '0'), 32) END,
         ('00000000-0000-4000-8000-' || lpad(to_hex(k % 10), 12, '0'))::uuid,
         'sim/bench-model-' || m, 'bench-provider-' || (m % 6), 'bench-upstream-' || m,
         (CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'succeeded' END)::"GenerationStatus",
         100 + g % 900, 20 + g % 400, g % 64, g % 7, false,
         ((g % 1000) * 0.000001)::numeric, ((g % 1000) * 0.000001)::numeric, g % 97 = 0, 50 + g % 2000,
         1, ARRAY['bench-provider-' || (m % 6) || '/bench-upstream-' || m], $2::timestamptz - (g::float8 / $3) * interval '${DAYS} days',
         'req-bench-' || g, g % 2 = 0, CASE WHEN g % 13 = 0 THEN 'length' ELSE 'stop' END, 'chatcmpl-' || g, 40 + g % 1500
       FROM generate_series($4::bigint, $6::bigint) AS g,
         LATERAL (SELECT (g * 7919) % ${KEYS} AS k) keys,
         LATERAL (SELECT (((g * 7919) % ${KEYS}) * 3 + g % 3) % ${MODELS} AS m) models`,
      [workspaceId, new Date(now).toISOString(), rows, start, RARE_KEY, end],
    );
  }
  signal.throwIfAborted();
  for (const { name, definition } of constraints.rows)
    await database.query(`ALTER TABLE generations ADD CONSTRAINT "${name}" ${definition}`);
  // A partitioned index's definition reads `ON ONLY generations` (the parent alone): built here on every partition.
  for (const index of indexes.rows) if (!index.constraint) await database.query(index.definition.replace(' ON ONLY ', ' ON '));
  // The rollups as the writer keeps them (the same sums, one row per hour, key, user, model and endpoint), written in
  // time order as the writer writes them: hash-aggregate order scattered each hour's rows over the whole table.
  await database.query(
    `INSERT INTO generation_rollups
     SELECT workspace_id, date_trunc('hour', created_at, 'UTC'), key_hash,
       COALESCE(user_id, '00000000-0000-0000-0000-000000000000'::uuid), model, provider, upstream_model,
       count(*), count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE streamed), count(*) FILTER (WHERE is_byok),
       sum(prompt_tokens), sum(completion_tokens), sum(reasoning_tokens), sum(cached_tokens),
       sum(cost), sum(upstream_cost), COALESCE(sum(upstream_cost) FILTER (WHERE is_byok), 0), sum(latency_ms)
     FROM generations WHERE workspace_id = $1 GROUP BY 1, 2, 3, 4, 5, 6, 7
     ORDER BY 2
     ON CONFLICT DO NOTHING`,
    [workspaceId],
  );
  await database.query(
    `INSERT INTO generation_rollups_daily
     SELECT workspace_id, (hour AT TIME ZONE 'UTC')::date, key_hash, user_id, model, provider, upstream_model,
       sum(requests), sum(failed_requests), sum(streamed_requests), sum(byok_requests), sum(prompt_tokens), sum(completion_tokens),
       sum(reasoning_tokens), sum(cached_tokens), sum(cost), sum(upstream_cost), sum(byok_upstream_cost), sum(latency_ms)
     FROM generation_rollups WHERE workspace_id = $1 GROUP BY 1, 2, 3, 4, 5, 6, 7
     ORDER BY 2
     ON CONFLICT DO NOTHING`,
    [workspaceId],
  );
  await database.query(
    `INSERT INTO generation_rollups_daily_models
     SELECT workspace_id, day, model, provider, upstream_model,
       sum(requests), sum(failed_requests), sum(streamed_requests), sum(byok_requests), sum(prompt_tokens), sum(completion_tokens),
       sum(reasoning_tokens), sum(cached_tokens), sum(cost), sum(upstream_cost), sum(byok_upstream_cost), sum(latency_ms)
     FROM generation_rollups_daily WHERE workspace_id = $1 GROUP BY 1, 2, 3, 4, 5
     ORDER BY 2
     ON CONFLICT DO NOTHING`,
    [workspaceId],
  );
  await database.query(
    `INSERT INTO generation_rollups_hourly_keys
     SELECT workspace_id, hour, key_hash,
       sum(requests), sum(failed_requests), sum(streamed_requests), sum(byok_requests), sum(prompt_tokens), sum(completion_tokens),
       sum(reasoning_tokens), sum(cached_tokens), sum(cost), sum(upstream_cost), sum(byok_upstream_cost), sum(latency_ms)
     FROM generation_rollups WHERE workspace_id = $1 GROUP BY 1, 2, 3
     ORDER BY 2
     ON CONFLICT DO NOTHING`,
    [workspaceId],
  );
}

async function diskOf(database: pg.Client, rows: number): Promise<GenerationsScenarioResult['disk']> {
  const partitions = await database.query<{ bytes: string; partitions: string }>(
    `SELECT sum(pg_total_relation_size(relid))::text AS bytes, count(*)::text AS partitions
     FROM pg_partition_tree('generations') WHERE isleaf`,
  );
  const rollups = await database.query<{ bytes: string; rows: string }>(
    `SELECT (pg_total_relation_size('generation_rollups') + pg_total_relation_size('generation_rollups_daily')
         + pg_total_relation_size('generation_rollups_daily_models') + pg_total_relation_size('generation_rollups_hourly_keys'))::text AS bytes,
       ((SELECT count(*) FROM generation_rollups) + (SELECT count(*) FROM generation_rollups_daily)
         + (SELECT count(*) FROM generation_rollups_daily_models) + (SELECT count(*) FROM generation_rollups_hourly_keys))::text AS rows`,
  );
  const bytes = Number(partitions.rows[0]!.bytes);
  return {
    generationsBytes: bytes,
    generationsBytesPerMillionRows: Math.round(bytes / Math.max(1, rows / 1_000_000)),
    partitions: Number(partitions.rows[0]!.partitions),
    rollupRows: Number(rollups.rows[0]!.rows),
    rollupBytes: Number(rollups.rows[0]!.bytes),
  };
}

/** One request: its time in ms, refused unless it answered 200 (the body is read whole). */
async function timed(url: string, init: RequestInit): Promise<{ ms: number; body: unknown }> {
  const started = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return { ms, body: JSON.parse(text) as unknown };
}

async function shape(request: () => Promise<{ ms: number }>): Promise<ShapeFigures> {
  for (let index = 0; index < WARMUP; index++) await request();
  const times: number[] = [];
  for (let index = 0; index < SAMPLES; index++) times.push((await request()).ms);
  return figures(times);
}

/** Pages followed by their cursors (`pages` deep), each page one sample; repeated to SAMPLES pages. */
async function cursorWalk(
  get: (path: string) => Promise<{ ms: number; body: unknown }>,
  first: string,
  pages: number,
): Promise<ShapeFigures> {
  const times: number[] = [];
  while (times.length < SAMPLES) {
    let path = first;
    for (let page = 0; page < pages && times.length < SAMPLES; page++) {
      const { ms, body } = await get(path);
      times.push(ms);
      const next = (body as { next_cursor: string | null }).next_cursor;
      if (!next) break;
      path = `${first}&cursor=${next}`;
    }
  }
  return figures(times);
}

function figures(times: number[]): ShapeFigures {
  const sorted = [...times].sort((a, b) => a - b);
  const fix = (value: number) => Math.round(value * 10) / 10;
  return { samples: sorted.length, p50Ms: fix(percentile(sorted, 50)), p95Ms: fix(percentile(sorted, 95)), maxMs: fix(sorted.at(-1) ?? 0) };
}
