-- Key usage counters, workspace credits and the exactly-once usage ledger (docs/adr: usage-counting, credits).

-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN "credits_total" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN "usage_total" DECIMAL(38,18) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN "usage" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN "byok_usage" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN "usage_daily" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN "byok_usage_daily" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN "daily_period_start" DATE,
ADD COLUMN "usage_weekly" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN "byok_usage_weekly" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN "weekly_period_start" DATE,
ADD COLUMN "usage_monthly" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN "byok_usage_monthly" DECIMAL(38,18) NOT NULL DEFAULT 0,
ADD COLUMN "monthly_period_start" DATE;

-- CreateTable
CREATE TABLE "usage_ledger" (
    "generation_id" VARCHAR(128) NOT NULL,
    "workspace_id" UUID NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "cost" DECIMAL(38,18) NOT NULL,
    "upstream_cost" DECIMAL(38,18) NOT NULL,
    "is_byok" BOOLEAN NOT NULL,
    "generated_at" TIMESTAMPTZ(3) NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_ledger_pkey" PRIMARY KEY ("generation_id")
);

-- CreateTable
CREATE TABLE "credit_grants" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "amount" DECIMAL(38,18) NOT NULL,
    "created_by_user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_grants_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "usage_ledger_workspace_id_generated_at_idx" ON "usage_ledger"("workspace_id", "generated_at");

-- CreateIndex
CREATE INDEX "credit_grants_workspace_id_created_at_idx" ON "credit_grants"("workspace_id", "created_at");

-- AddForeignKey
ALTER TABLE "credit_grants" ADD CONSTRAINT "credit_grants_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
