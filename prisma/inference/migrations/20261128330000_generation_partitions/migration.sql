-- Generation rows partitioned by UTC day of created_at (issue 31 item 4): retention drops whole
-- partitions (GENERATION_RETENTION_DAYS), never DELETEs rows; the rollups live in their own table
-- and are kept longer. The primary key must hold the partition key: (id, created_at). A
-- redelivered usage event carries the same createdAt, so ON CONFLICT still finds it.
-- The table is rebuilt with LIKE, so columns other migrations added before this one come along.

ALTER TABLE "generations" RENAME TO "generations_unpartitioned";
ALTER INDEX "generations_pkey" RENAME TO "generations_unpartitioned_pkey";
ALTER INDEX "generations_workspace_id_created_at_idx" RENAME TO "generations_unpartitioned_workspace_id_created_at_idx";

CREATE TABLE "generations" (LIKE "generations_unpartitioned" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE ("created_at");
ALTER TABLE "generations" ADD CONSTRAINT "generations_pkey" PRIMARY KEY ("id", "created_at");
CREATE INDEX "generations_workspace_id_created_at_idx" ON "generations" ("workspace_id", "created_at");
-- The list by key (the most asked filter): without it a rare key's page reads every row between matches.
CREATE INDEX "generations_workspace_id_key_hash_created_at_idx" ON "generations" ("workspace_id", "key_hash", "created_at");

-- The partition of one UTC day, created when missing (writers call it for every day of a batch;
-- the advisory lock keeps two replicas from creating the same one at once).
CREATE FUNCTION "generation_partition_for"(day date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  name text := 'generations_' || to_char(day, 'YYYYMMDD');
BEGIN
  IF to_regclass(name) IS NOT NULL THEN
    RETURN name;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('generation_partitions'));
  -- The statement's catalog snapshot may predate a partition another writer just committed.
  BEGIN
    EXECUTE format('CREATE TABLE %I PARTITION OF generations FOR VALUES FROM (%L) TO (%L)', name,
      (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
  EXCEPTION WHEN duplicate_table OR unique_violation THEN
    NULL;
  END;
  RETURN name;
END $$;

-- A partition for every day holding rows, and for today and the next week.
SELECT "generation_partition_for"(day::date)
FROM (
  SELECT DISTINCT (created_at AT TIME ZONE 'UTC')::date AS day FROM "generations_unpartitioned"
  UNION
  SELECT generate_series((now() AT TIME ZONE 'UTC')::date, (now() AT TIME ZONE 'UTC')::date + 7, interval '1 day')::date
) days;

INSERT INTO "generations" SELECT * FROM "generations_unpartitioned";
DROP TABLE "generations_unpartitioned";
