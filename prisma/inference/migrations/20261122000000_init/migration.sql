-- CreateEnum
CREATE TYPE "GenerationStatus" AS ENUM ('succeeded', 'failed');

-- CreateTable
CREATE TABLE "generations" (
    "id" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "model" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "upstream_model" TEXT NOT NULL,
    "status" "GenerationStatus" NOT NULL,
    "prompt_tokens" INTEGER NOT NULL,
    "completion_tokens" INTEGER NOT NULL,
    "cached_tokens" INTEGER NOT NULL DEFAULT 0,
    "reasoning_tokens" INTEGER NOT NULL DEFAULT 0,
    "tokens_estimated" BOOLEAN NOT NULL DEFAULT false,
    "cost" DECIMAL(24,12) NOT NULL,
    "is_byok" BOOLEAN NOT NULL DEFAULT false,
    "latency_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "generations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "generations_workspace_id_created_at_idx" ON "generations"("workspace_id", "created_at");
