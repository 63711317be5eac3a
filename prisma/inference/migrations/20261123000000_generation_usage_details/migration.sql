-- Every usage detail a provider reports reaches the generation record (issue 10): cache
-- writes, audio / file / video prompt tokens, audio / image completion tokens, server tools.
ALTER TABLE "generations" ADD COLUMN "usage_details" JSONB;
