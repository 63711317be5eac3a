-- Presets and their versions (spec §2.3, §3.3; docs/adr: presets-versioning).

-- CreateEnum
CREATE TYPE "PresetStatus" AS ENUM ('active');

-- CreateTable
CREATE TABLE "presets" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "status" "PresetStatus" NOT NULL DEFAULT 'active',
    "status_updated_at" TIMESTAMPTZ(3),
    "creator_user_id" UUID NOT NULL,
    "latest_version" INTEGER NOT NULL,
    "designated_version_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "presets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "preset_versions" (
    "id" UUID NOT NULL,
    "preset_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "config" JSONB NOT NULL,
    "system_prompt" TEXT,
    "creator_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "preset_versions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "presets_designated_version_id_key" ON "presets"("designated_version_id");

-- CreateIndex
CREATE INDEX "presets_workspace_id_updated_at_idx" ON "presets"("workspace_id", "updated_at");

-- CreateIndex
CREATE UNIQUE INDEX "presets_workspace_id_slug_key" ON "presets"("workspace_id", "slug");

-- CreateIndex
CREATE UNIQUE INDEX "preset_versions_preset_id_version_key" ON "preset_versions"("preset_id", "version");

-- AddForeignKey
ALTER TABLE "presets" ADD CONSTRAINT "presets_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "presets" ADD CONSTRAINT "presets_creator_user_id_fkey" FOREIGN KEY ("creator_user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "presets" ADD CONSTRAINT "presets_designated_version_id_fkey" FOREIGN KEY ("designated_version_id") REFERENCES "preset_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "preset_versions" ADD CONSTRAINT "preset_versions_preset_id_fkey" FOREIGN KEY ("preset_id") REFERENCES "presets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "preset_versions" ADD CONSTRAINT "preset_versions_creator_id_fkey" FOREIGN KEY ("creator_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
