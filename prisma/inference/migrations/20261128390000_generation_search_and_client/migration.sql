-- More fields of GET /v1/generation the gateway knows (issue 31 item 1, ADR 0144): the web plugin's
-- search results and engine, the pages the web-fetch plugin read, the client's HTTP-Referer,
-- User-Agent and Origin as the edge received them (cut to 512 characters), the body's `user`. Nullable without
-- defaults: no rewrite, and older rows read as null (not recorded).
ALTER TABLE "generations"
  ADD COLUMN "num_search_results" INTEGER,
  ADD COLUMN "num_fetches"        INTEGER,
  ADD COLUMN "web_search_engine"  TEXT,
  ADD COLUMN "http_referer"       TEXT,
  ADD COLUMN "user_agent"         TEXT,
  ADD COLUMN "origin"             TEXT,
  ADD COLUMN "external_user"      TEXT;

-- Each provider call's HTTP status (0: none, a connect error or a timeout) and milliseconds, in the
-- order of endpoints_tried: GET /v1/generation's provider_responses of every attempt.
ALTER TABLE "generations"
  ADD COLUMN "attempt_statuses"     INTEGER[],
  ADD COLUMN "attempt_latencies_ms" INTEGER[];
