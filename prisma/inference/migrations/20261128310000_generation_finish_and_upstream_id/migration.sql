-- What `GET /v1/generation` answered null although the answer had it (issue 31 item 1): the finish
-- reason (the answer's, and the provider's own), the provider's id of its response, the time the
-- provider spent generating, whether the client went away first, and the provider's service tier. Nullable without a default:
-- no table rewrite; rows of older events read as null.
ALTER TABLE "generations" ADD COLUMN "finish_reason" TEXT;
ALTER TABLE "generations" ADD COLUMN "native_finish_reason" TEXT;
ALTER TABLE "generations" ADD COLUMN "upstream_id" TEXT;
ALTER TABLE "generations" ADD COLUMN "generation_time_ms" INTEGER;
ALTER TABLE "generations" ADD COLUMN "cancelled" BOOLEAN;
ALTER TABLE "generations" ADD COLUMN "service_tier" TEXT;
