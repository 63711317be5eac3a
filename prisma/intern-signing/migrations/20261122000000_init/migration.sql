-- CreateTable
CREATE TABLE "interns" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "owner_user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "interns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "daemon_signing_keys" (
    "id" UUID NOT NULL,
    "public_key" TEXT NOT NULL,
    "encrypted_private_key" BYTEA NOT NULL,
    "kek_version" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "daemon_signing_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "interns_workspace_id_idx" ON "interns"("workspace_id");
