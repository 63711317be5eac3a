-- Spend held before a generating call and settled as its usage events are counted (issue 35, ADR 0093).
CREATE TABLE "spend_reservations" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "amount" DECIMAL(38,18) NOT NULL,
    "released" BOOLEAN NOT NULL DEFAULT false,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "spend_reservations_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "spend_reservations_workspace_id_expires_at_idx" ON "spend_reservations"("workspace_id", "expires_at");

-- A management key may set at most 1,000 requests in flight per key now (was 100,000).
UPDATE "api_keys" SET "concurrency_limit" = 1000 WHERE "concurrency_limit" > 1000;
