-- CreateEnum
CREATE TYPE "BatchStatus" AS ENUM ('validating', 'in_progress', 'finalizing', 'completed', 'failed', 'expired', 'cancelling', 'cancelled');

-- CreateEnum
CREATE TYPE "BatchRequestStatus" AS ENUM ('pending', 'running', 'completed', 'failed');

-- CreateTable
CREATE TABLE "batches" (
    "id" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "endpoint" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "completion_window" TEXT NOT NULL DEFAULT '24h',
    "status" "BatchStatus" NOT NULL DEFAULT 'validating',
    "error_message" TEXT,
    "total_count" INTEGER NOT NULL DEFAULT 0,
    "completed_count" INTEGER NOT NULL DEFAULT 0,
    "failed_count" INTEGER NOT NULL DEFAULT 0,
    "cost" DECIMAL(24,12),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finalized_at" TIMESTAMPTZ(3),
    "results_expire_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batch_requests" (
    "id" TEXT NOT NULL,
    "batch_id" TEXT NOT NULL,
    "custom_id" TEXT NOT NULL,
    "line_number" INTEGER NOT NULL,
    "body" JSONB NOT NULL,
    "status" "BatchRequestStatus" NOT NULL DEFAULT 'pending',
    "response" JSONB,
    "error" JSONB,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "batch_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "batches_workspace_id_created_at_idx" ON "batches"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "batch_requests_batch_id_status_idx" ON "batch_requests"("batch_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "batch_requests_batch_id_custom_id_key" ON "batch_requests"("batch_id", "custom_id");

-- AddForeignKey
ALTER TABLE "batch_requests" ADD CONSTRAINT "batch_requests_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;
