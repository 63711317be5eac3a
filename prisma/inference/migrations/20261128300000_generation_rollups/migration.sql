-- Activity and analytics (issue 31 item 3) read hourly sums, never the generation rows: one row per
-- workspace, UTC hour, key, user, model and endpoint, added to by the same statement that inserts
-- the generations (only rows actually inserted count, so a redelivered event adds nothing).
-- user_id is never null (a row without a user sums under the nil uuid) so it can be in the key.
CREATE TABLE "generation_rollups" (
  "workspace_id"       UUID NOT NULL,
  "hour"               TIMESTAMPTZ(0) NOT NULL,
  "key_hash"           CHAR(64) NOT NULL,
  "user_id"            UUID NOT NULL,
  "model"              TEXT NOT NULL,
  "provider"           TEXT NOT NULL,
  "upstream_model"     TEXT NOT NULL,
  "requests"           BIGINT NOT NULL,
  "failed_requests"    BIGINT NOT NULL,
  "streamed_requests"  BIGINT NOT NULL,
  "byok_requests"      BIGINT NOT NULL,
  "prompt_tokens"      BIGINT NOT NULL,
  "completion_tokens"  BIGINT NOT NULL,
  "reasoning_tokens"   BIGINT NOT NULL,
  "cached_tokens"      BIGINT NOT NULL,
  "cost"               NUMERIC(30, 12) NOT NULL,
  "upstream_cost"      NUMERIC(30, 12) NOT NULL,
  "byok_upstream_cost" NUMERIC(30, 12) NOT NULL,
  "latency_ms"         BIGINT NOT NULL,
  CONSTRAINT "generation_rollups_pkey" PRIMARY KEY ("workspace_id", "hour", "key_hash", "user_id", "model", "provider", "upstream_model")
);

-- The generations stored before this migration, summed once.
INSERT INTO "generation_rollups"
SELECT workspace_id, date_trunc('hour', created_at, 'UTC'), key_hash,
  COALESCE(user_id, '00000000-0000-0000-0000-000000000000'::uuid), model, provider, upstream_model,
  count(*), count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE streamed), count(*) FILTER (WHERE is_byok),
  sum(prompt_tokens), sum(completion_tokens), sum(reasoning_tokens), sum(cached_tokens),
  sum(cost), sum(upstream_cost), COALESCE(sum(upstream_cost) FILTER (WHERE is_byok), 0), sum(latency_ms)
FROM "generations"
GROUP BY 1, 2, 3, 4, 5, 6, 7;
