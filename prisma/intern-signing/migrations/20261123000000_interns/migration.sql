-- Signing keys come from configuration (DAEMON_SIGNING_KEYS), not the database (ADR 0021).
DROP TABLE "daemon_signing_keys";

-- CreateEnum
CREATE TYPE "InternStatus" AS ENUM ('awaiting_slack_install', 'queued', 'provisioning', 'running', 'failed', 'stopped', 'destroying', 'destroy_failed');

-- AlterTable
ALTER TABLE "interns" ADD COLUMN "description" TEXT,
ADD COLUMN "instructions" TEXT,
ADD COLUMN "model" TEXT,
ADD COLUMN "hostname" TEXT,
ADD COLUMN "status" "InternStatus" NOT NULL DEFAULT 'stopped';

-- DropIndex
DROP INDEX "interns_workspace_id_idx";

-- CreateIndex
CREATE UNIQUE INDEX "interns_workspace_id_owner_user_id_name_key" ON "interns"("workspace_id", "owner_user_id", "name");

-- CreateIndex
CREATE INDEX "interns_workspace_id_created_at_id_idx" ON "interns"("workspace_id", "created_at" DESC, "id" DESC);
