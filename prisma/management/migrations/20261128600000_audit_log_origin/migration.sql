-- Audit rows relayed from another service's outbox (ADR 0142): `origin` names the change uniquely so a
-- record relayed twice is stored once; `actor_name` is the operator credential's name. Additive only.

ALTER TABLE "audit_log" ADD COLUMN "origin" TEXT;
ALTER TABLE "audit_log" ADD COLUMN "actor_name" TEXT;

CREATE UNIQUE INDEX "audit_log_origin_key" ON "audit_log"("origin");
