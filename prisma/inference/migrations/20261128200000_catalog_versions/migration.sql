-- The model catalog an operator changes at run time (issue 30 items 3 and 6). Every change is a
-- new row holding the whole catalog document as the operator wrote it (`${VAR}` references kept,
-- never the secrets they name), with who made it, when, and what it changed.
CREATE TABLE "catalog_versions" (
    "version" INTEGER NOT NULL,
    "document" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "changes" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "catalog_versions_pkey" PRIMARY KEY ("version")
);

-- The catalog file's content last reconciled with the database (one row): a file that differs
-- from it changed since, and is applied or reported as a conflict, never dropped silently.
CREATE TABLE "catalog_file_seen" (
    "id" SMALLINT NOT NULL DEFAULT 1,
    "hash" CHAR(64) NOT NULL,
    "version" INTEGER NOT NULL,
    "seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "catalog_file_seen_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "catalog_file_seen_one_row" CHECK ("id" = 1)
);

-- The catalog version whose prices a generation was charged at; null on rows of older events.
ALTER TABLE "generations" ADD COLUMN "price_version" INTEGER;
