-- Batches run by the service (issue 13): the submitting principal, leases on lines, expiry,
-- retention, the cost guard's charge marks, and per-line usage.

-- AlterTable
ALTER TABLE "batches" ADD COLUMN     "principal" JSONB NOT NULL,
ADD COLUMN     "provider" JSONB,
ADD COLUMN     "metadata" JSONB,
ADD COLUMN     "usage" JSONB,
ADD COLUMN     "submitted_at" TIMESTAMPTZ(3),
ADD COLUMN     "expires_at" TIMESTAMPTZ(3) NOT NULL,
ADD COLUMN     "results_deleted_at" TIMESTAMPTZ(3),
ADD COLUMN     "charged_at" TIMESTAMPTZ(3),
ADD COLUMN     "charge_published_at" TIMESTAMPTZ(3),
ADD COLUMN     "upstream" JSONB,
ALTER COLUMN "created_at" DROP DEFAULT;

-- AlterTable
ALTER TABLE "batch_requests" ADD COLUMN     "workspace_id" UUID NOT NULL,
ADD COLUMN     "lease_owner" TEXT,
ADD COLUMN     "lease_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "generation_id" TEXT,
ADD COLUMN     "cost" DECIMAL(24,12),
ADD COLUMN     "usage" JSONB,
ADD COLUMN     "finished_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "batches_status_idx" ON "batches"("status");

-- CreateIndex
CREATE UNIQUE INDEX "batch_requests_generation_id_key" ON "batch_requests"("generation_id");

-- CreateIndex
CREATE UNIQUE INDEX "batch_requests_batch_id_line_number_key" ON "batch_requests"("batch_id", "line_number");

-- CreateIndex
CREATE INDEX "batch_requests_status_lease_expires_at_idx" ON "batch_requests"("status", "lease_expires_at");

-- CreateIndex
CREATE INDEX "batch_requests_claim_idx" ON "batch_requests"("workspace_id", "status", "batch_id", "line_number");
