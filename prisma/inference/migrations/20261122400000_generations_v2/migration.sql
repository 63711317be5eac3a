-- Generation records written from usage events: the cost split (charged vs upstream, for
-- BYOK), who and which session, the batch, and how routing got there.
ALTER TABLE "generations"
    ADD COLUMN "upstream_cost" DECIMAL(24,12) NOT NULL DEFAULT 0,
    ADD COLUMN "user_id" UUID,
    ADD COLUMN "session_id" TEXT,
    ADD COLUMN "batch_id" TEXT,
    ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 1,
    ADD COLUMN "endpoints_tried" TEXT[] DEFAULT ARRAY[]::TEXT[];
