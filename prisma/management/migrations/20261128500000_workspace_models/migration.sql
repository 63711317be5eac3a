-- A workspace's own models (issue 30 item 4, ADR 0131): endpoints on its own servers, called with
-- its BYOK credentials. Additive only.

CREATE TABLE "workspace_models" (
    "workspace_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "workspace_models_pkey" PRIMARY KEY ("workspace_id", "id")
);

ALTER TABLE "workspace_models" ADD CONSTRAINT "workspace_models_workspace_id_fkey"
    FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
