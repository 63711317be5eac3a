-- Activity and analytics show what the response cache saved (issue 34): per rollup row the hits,
-- what they avoided (the cost the stored answers' generations charged) and the savings (that,
-- less what the hits were charged at the cache price). Constant defaults: no table rewrite.
ALTER TABLE "generation_rollups"
  ADD COLUMN "cache_hits"    BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN "cost_avoided"  NUMERIC(30, 12) NOT NULL DEFAULT 0,
  ADD COLUMN "cache_savings" NUMERIC(30, 12) NOT NULL DEFAULT 0;
ALTER TABLE "generation_rollups_daily"
  ADD COLUMN "cache_hits"    BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN "cost_avoided"  NUMERIC(30, 12) NOT NULL DEFAULT 0,
  ADD COLUMN "cache_savings" NUMERIC(30, 12) NOT NULL DEFAULT 0;

-- The hits recorded before this migration, summed once (their rollup rows exist: every row was summed when written).
UPDATE "generation_rollups" AS total
SET cache_hits = hits.cache_hits, cost_avoided = hits.cost_avoided, cache_savings = hits.cache_savings
FROM (
  SELECT workspace_id, date_trunc('hour', created_at, 'UTC') AS hour, key_hash,
    COALESCE(user_id, '00000000-0000-0000-0000-000000000000'::uuid) AS user_id, model, provider, upstream_model,
    count(*) AS cache_hits, COALESCE(sum(cost_avoided), 0) AS cost_avoided, COALESCE(sum(cost_avoided - cost), 0) AS cache_savings
  FROM "generations" WHERE cache_hit
  GROUP BY 1, 2, 3, 4, 5, 6, 7
) AS hits
WHERE total.workspace_id = hits.workspace_id AND total.hour = hits.hour AND total.key_hash = hits.key_hash
  AND total.user_id = hits.user_id AND total.model = hits.model AND total.provider = hits.provider
  AND total.upstream_model = hits.upstream_model;

UPDATE "generation_rollups_daily" AS total
SET cache_hits = hits.cache_hits, cost_avoided = hits.cost_avoided, cache_savings = hits.cache_savings
FROM (
  SELECT workspace_id, (hour AT TIME ZONE 'UTC')::date AS day, key_hash, user_id, model, provider, upstream_model,
    sum(cache_hits) AS cache_hits, sum(cost_avoided) AS cost_avoided, sum(cache_savings) AS cache_savings
  FROM "generation_rollups" WHERE cache_hits > 0
  GROUP BY 1, 2, 3, 4, 5, 6, 7
) AS hits
WHERE total.workspace_id = hits.workspace_id AND total.day = hits.day AND total.key_hash = hits.key_hash
  AND total.user_id = hits.user_id AND total.model = hits.model AND total.provider = hits.provider
  AND total.upstream_model = hits.upstream_model;
