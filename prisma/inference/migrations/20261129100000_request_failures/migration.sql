-- Requests of authenticated keys answered with an error envelope (issue 32: errors by type), from
-- the USAGE stream's `events.usage.failed`, and their hourly sums, written by one statement
-- (the sums add only the rows it inserted, so a redelivery adds nothing).
CREATE TABLE "request_failures" (
  "failure_id"   UUID NOT NULL,
  "request_id"   TEXT NOT NULL,
  "workspace_id" UUID NOT NULL,
  "key_hash"     CHAR(64) NOT NULL,
  "user_id"      UUID,
  "model"        TEXT,
  "error_type"   TEXT NOT NULL,
  "status"       SMALLINT NOT NULL,
  "created_at"   TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "request_failures_pkey" PRIMARY KEY ("failure_id")
);

CREATE INDEX "request_failures_created_at_idx" ON "request_failures" ("created_at");

CREATE TABLE "request_failure_rollups" (
  "workspace_id" UUID NOT NULL,
  "hour"         TIMESTAMPTZ(0) NOT NULL,
  "key_hash"     CHAR(64) NOT NULL,
  "user_id"      UUID NOT NULL,
  "model"        TEXT NOT NULL,
  "error_type"   TEXT NOT NULL,
  "failures"     BIGINT NOT NULL,
  CONSTRAINT "request_failure_rollups_pkey" PRIMARY KEY ("workspace_id", "hour", "key_hash", "user_id", "model", "error_type")
);
