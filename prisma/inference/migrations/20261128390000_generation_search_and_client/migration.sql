-- More fields of GET /v1/generation the gateway knows (issue 31 item 1, ADR 0144): the web plugin's
-- search results and engine, the pages the web-fetch plugin read, and the client's HTTP-Referer,
-- User-Agent and Origin as the edge received them (cut to 512 characters). Nullable without
-- defaults: no rewrite, and older rows read as null (not recorded).
ALTER TABLE "generations"
  ADD COLUMN "num_search_results" INTEGER,
  ADD COLUMN "num_fetches"        INTEGER,
  ADD COLUMN "web_search_engine"  TEXT,
  ADD COLUMN "http_referer"       TEXT,
  ADD COLUMN "user_agent"         TEXT,
  ADD COLUMN "origin"             TEXT;
