-- The daily sums per model and endpoint, without key and user (issue 31 item 3): activity and the
-- analytics of a whole workspace read one row per day and endpoint, however many keys and users
-- called it (the per-key daily table grows with them). Written by the same statement as the other
-- rollups and the generation rows; the existing daily sums folded once here.
CREATE TABLE "generation_rollups_daily_models" (
  "workspace_id"       UUID NOT NULL,
  "day"                DATE NOT NULL,
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
  "cache_hits"         BIGINT NOT NULL DEFAULT 0,
  "cost_avoided"       NUMERIC(30, 12) NOT NULL DEFAULT 0,
  "cache_savings"      NUMERIC(30, 12) NOT NULL DEFAULT 0,
  CONSTRAINT "generation_rollups_daily_models_pkey" PRIMARY KEY ("workspace_id", "day", "model", "provider", "upstream_model")
);

INSERT INTO "generation_rollups_daily_models"
SELECT workspace_id, day, model, provider, upstream_model,
  sum(requests), sum(failed_requests), sum(streamed_requests), sum(byok_requests), sum(prompt_tokens), sum(completion_tokens),
  sum(reasoning_tokens), sum(cached_tokens), sum(cost), sum(upstream_cost), sum(byok_upstream_cost), sum(latency_ms),
  sum(cache_hits), sum(cost_avoided), sum(cache_savings)
FROM "generation_rollups_daily"
GROUP BY 1, 2, 3, 4, 5;
