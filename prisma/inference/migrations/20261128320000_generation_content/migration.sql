-- Content logging (issue 31 item 1): off unless a workspace turns it on; the prompt and completion
-- of a generation, redacted and cut to a size, sealed like BYOK secrets (AES-256-GCM under a data
-- key of its own, wrapped by a key-encryption key from CONTENT_KEKS), kept until expires_at.
CREATE TABLE "content_logging_settings" (
  "workspace_id"   UUID NOT NULL,
  "enabled"        BOOLEAN NOT NULL,
  "retention_days" INTEGER NOT NULL,
  "updated_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "content_logging_settings_pkey" PRIMARY KEY ("workspace_id")
);

CREATE TABLE "generation_contents" (
  "generation_id"    TEXT NOT NULL,
  "workspace_id"     UUID NOT NULL,
  "key_hash"         CHAR(64) NOT NULL,
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "expires_at"       TIMESTAMPTZ(3) NOT NULL,
  "truncated"        BOOLEAN NOT NULL,
  "redactions"       INTEGER NOT NULL,
  "encrypted"        BYTEA NOT NULL,
  "wrapped_data_key" BYTEA NOT NULL,
  "kek_version"      TEXT NOT NULL,
  CONSTRAINT "generation_contents_pkey" PRIMARY KEY ("generation_id")
);
CREATE INDEX "generation_contents_expires_at_idx" ON "generation_contents" ("expires_at");
