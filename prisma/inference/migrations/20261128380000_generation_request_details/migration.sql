-- Fields of GET /v1/generation that were answered null although the pipeline knows them (issue 31
-- item 1): the prompt-cache discount, the cached generation a hit replayed, the preset, the router,
-- the media and audio inputs counted in the prompt, the moderation plugin's time. Nullable without
-- defaults: no rewrite, and older rows read as null (not recorded).
ALTER TABLE "generations"
  ADD COLUMN "cache_discount"           DECIMAL(24,12),
  ADD COLUMN "response_cache_source_id" TEXT,
  ADD COLUMN "preset_id"                TEXT,
  ADD COLUMN "router"                   TEXT,
  ADD COLUMN "num_media_prompt"         INTEGER,
  ADD COLUMN "num_input_audio_prompt"   INTEGER,
  ADD COLUMN "moderation_latency_ms"    INTEGER;
