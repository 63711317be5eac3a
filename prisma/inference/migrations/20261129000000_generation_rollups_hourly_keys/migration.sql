-- The hourly sums per key alone, without user, model and endpoint (issue 31 item 4): hourly
-- analytics by key (or of the whole workspace) read one row per hour and key, however many users
-- and models it had. Written by the same statement as the other rollups and the generation rows;
-- the existing hourly sums folded once here.
CREATE TABLE "generation_rollups_hourly_keys" (
  "workspace_id"       UUID NOT NULL,
  "hour"               TIMESTAMPTZ(0) NOT NULL,
  "key_hash"           CHAR(64) NOT NULL,
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
  "cache_hits"         BIGINT NOT NULL DEFAULT 0,
  "cost_avoided"       NUMERIC(30, 12) NOT NULL DEFAULT 0,
  "cache_savings"      NUMERIC(30, 12) NOT NULL DEFAULT 0,
  CONSTRAINT "generation_rollups_hourly_keys_pkey" PRIMARY KEY ("workspace_id", "hour", "key_hash")
);

INSERT INTO "generation_rollups_hourly_keys"
SELECT workspace_id, hour, key_hash,
  sum(requests), sum(failed_requests), sum(streamed_requests), sum(byok_requests), sum(prompt_tokens), sum(completion_tokens),
  sum(reasoning_tokens), sum(cached_tokens), sum(cost), sum(upstream_cost), sum(byok_upstream_cost), sum(latency_ms),
  sum(cache_hits), sum(cost_avoided), sum(cache_savings)
FROM "generation_rollups"
GROUP BY 1, 2, 3;
