-- The gateway's request id of each generation (`x-request-id`), which the usage event already
-- carries: `GET /v1/generation` answers it as `request_id`. Nullable, no default: no table rewrite.
ALTER TABLE "generations" ADD COLUMN "request_id" TEXT;
