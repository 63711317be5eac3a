-- Files of OpenAI's batch flow (issue 28, ADR 0102): uploads stored in parts, the batch's input
-- file, and failed lines' results in spec §2.1.1's shape (response null, the failure in error).

-- AlterTable
ALTER TABLE "batches" ADD COLUMN     "input_file_id" TEXT;

-- CreateTable
CREATE TABLE "files" (
    "id" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "intern_id" TEXT,
    "purpose" TEXT,
    "filename" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "file_parts" (
    "file_id" TEXT NOT NULL,
    "part" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "file_parts_pkey" PRIMARY KEY ("file_id","part")
);

-- CreateIndex
CREATE INDEX "files_workspace_id_created_at_idx" ON "files"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "files_expires_at_idx" ON "files"("expires_at");

-- AddForeignKey
ALTER TABLE "file_parts" ADD CONSTRAINT "file_parts_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A failed line's result: its failure is in "error" only.
UPDATE "batch_requests" SET "response" = NULL WHERE "status" = 'failed';
