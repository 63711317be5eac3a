-- Per-key overrides of the gateway's request limits (issue 9 item 4, ADR 0033); null: the gateway's default.
ALTER TABLE "api_keys" ADD COLUMN "rate_limit_rpm" INTEGER;
ALTER TABLE "api_keys" ADD COLUMN "concurrency_limit" INTEGER;
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_rate_limit_rpm_positive" CHECK ("rate_limit_rpm" IS NULL OR "rate_limit_rpm" > 0);
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_concurrency_limit_positive" CHECK ("concurrency_limit" IS NULL OR "concurrency_limit" > 0);
