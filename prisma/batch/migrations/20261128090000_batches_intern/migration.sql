-- An intern key's batches are its intern's only (spec §4.4, issue 35): the creating intern is
-- stored with the batch, and the batches intern keys made before are given theirs.

-- AlterTable
ALTER TABLE "batches" ADD COLUMN     "intern_id" TEXT;

-- Backfill from the stored principal
UPDATE "batches" SET "intern_id" = "principal"->>'internId' WHERE "principal"->>'keyKind' = 'intern';

-- CreateIndex
CREATE INDEX "batches_workspace_id_intern_id_created_at_idx" ON "batches"("workspace_id", "intern_id", "created_at");
