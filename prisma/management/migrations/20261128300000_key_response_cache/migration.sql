-- A key whose requests use the response cache by default (docs/adr/0120): the entries' time to
-- live in seconds; null (every existing key) means only requests that opt in are cached.
ALTER TABLE "api_keys" ADD COLUMN "response_cache_ttl_seconds" INTEGER;
