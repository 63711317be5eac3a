-- The catalog's versions are the outbox of its audit rows (ADR 0142): `audited_at` is set once management
-- stored a version's rows; the request id and client address go with them. Existing versions are relayed
-- once (their history reaches the audit log). Additive only.

ALTER TABLE "catalog_versions" ADD COLUMN "audited_at" TIMESTAMPTZ(3);
ALTER TABLE "catalog_versions" ADD COLUMN "request_id" TEXT;
ALTER TABLE "catalog_versions" ADD COLUMN "client_ip" TEXT;

CREATE INDEX "catalog_versions_unaudited_idx" ON "catalog_versions"("version") WHERE "audited_at" IS NULL;
