-- What `GET /v1/generation` answers beyond the first columns (issue 31): the gateway's request id
-- (`x-request-id`), which the usage event already carried, and whether the client asked for a
-- stream. Both nullable without a default (rows of older events): no table rewrite.
ALTER TABLE "generations" ADD COLUMN "request_id" TEXT;
ALTER TABLE "generations" ADD COLUMN "streamed" BOOLEAN;
