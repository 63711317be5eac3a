-- CreateTable
CREATE TABLE "byok_credentials" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "is_byok_only" BOOLEAN NOT NULL DEFAULT false,
    "is_fallback" BOOLEAN NOT NULL DEFAULT false,
    "is_required" BOOLEAN NOT NULL DEFAULT false,
    "sort_order" INTEGER NOT NULL DEFAULT 0,
    "allowed_api_key_hashes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "allowed_models" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "allowed_user_ids" UUID[] DEFAULT ARRAY[]::UUID[],
    "declared_region" TEXT,
    "declared_zdr" BOOLEAN,
    "encrypted_secret" BYTEA NOT NULL,
    "wrapped_data_key" BYTEA NOT NULL,
    "kek_version" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "byok_credentials_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "byok_credentials_workspace_id_created_at_idx" ON "byok_credentials"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "byok_credentials_kek_version_idx" ON "byok_credentials"("kek_version");

-- AddForeignKey
ALTER TABLE "byok_credentials" ADD CONSTRAINT "byok_credentials_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
