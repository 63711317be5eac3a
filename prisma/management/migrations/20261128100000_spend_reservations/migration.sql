-- Spend held before a generating call and settled as its usage events are counted (issue 35, ADR 0093).
CREATE TABLE "spend_reservations" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "amount" DECIMAL(38,18) NOT NULL,
    "released" BOOLEAN NOT NULL DEFAULT false,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "spend_reservations_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "spend_reservations_workspace_id_expires_at_idx" ON "spend_reservations"("workspace_id", "expires_at");

-- A management key may set at most 1,000 requests in flight per key now (was 100,000).
UPDATE "api_keys" SET "concurrency_limit" = 1000 WHERE "concurrency_limit" > 1000;

-- One call, one round trip, so the workspace row is locked only while the function runs. Each
-- statement of a volatile function reads a fresh snapshot: the sums below see every hold and count
-- committed before the lock was granted. Returns NULL when held, else the refusal's reason.
-- The periods' first days come from the caller (UTC, weeks from Monday), as the count's do.
CREATE FUNCTION "spend_reserve"(p_id UUID, p_workspace UUID, p_key CHAR(64), p_amount NUMERIC, p_ttl_seconds INTEGER,
    p_day DATE, p_week DATE, p_month DATE)
RETURNS TEXT LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_balance NUMERIC;
  v_key "api_keys"%ROWTYPE;
  v_spent NUMERIC;
  v_held_workspace NUMERIC;
  v_held_key NUMERIC;
BEGIN
  SELECT "credits_total" - "usage_total" INTO v_balance FROM "workspaces" WHERE "id" = p_workspace FOR UPDATE;
  IF NOT FOUND THEN RETURN 'insufficient_credits'; END IF;
  SELECT * INTO v_key FROM "api_keys" WHERE "hash" = p_key AND "workspace_id" = p_workspace;
  IF NOT FOUND THEN RETURN 'key_limit_reached'; END IF;
  SELECT COALESCE(sum(GREATEST("amount", 0)), 0), COALESCE(sum(GREATEST("amount", 0)) FILTER (WHERE "key_hash" = p_key), 0)
    INTO v_held_workspace, v_held_key
    FROM "spend_reservations" WHERE "workspace_id" = p_workspace AND "expires_at" > now();
  IF v_balance - v_held_workspace < p_amount THEN RETURN 'insufficient_credits'; END IF;
  IF v_key."limit" IS NOT NULL THEN
    v_spent := CASE v_key."limit_reset"
      WHEN 'daily' THEN CASE WHEN v_key."daily_period_start" = p_day
        THEN v_key."usage_daily" + CASE WHEN v_key."include_byok_in_limit" THEN v_key."byok_usage_daily" ELSE 0 END ELSE 0 END
      WHEN 'weekly' THEN CASE WHEN v_key."weekly_period_start" = p_week
        THEN v_key."usage_weekly" + CASE WHEN v_key."include_byok_in_limit" THEN v_key."byok_usage_weekly" ELSE 0 END ELSE 0 END
      WHEN 'monthly' THEN CASE WHEN v_key."monthly_period_start" = p_month
        THEN v_key."usage_monthly" + CASE WHEN v_key."include_byok_in_limit" THEN v_key."byok_usage_monthly" ELSE 0 END ELSE 0 END
      ELSE v_key."usage" + CASE WHEN v_key."include_byok_in_limit" THEN v_key."byok_usage" ELSE 0 END
    END;
    IF v_key."limit" - v_spent - v_held_key < p_amount THEN RETURN 'key_limit_reached'; END IF;
  END IF;
  DELETE FROM "spend_reservations" WHERE "workspace_id" = p_workspace AND ("expires_at" <= now() OR ("released" AND "amount" <= 0));
  INSERT INTO "spend_reservations" ("id", "workspace_id", "key_hash", "amount", "expires_at")
    VALUES (p_id, p_workspace, p_key, p_amount, now() + make_interval(secs => p_ttl_seconds));
  RETURN NULL;
END;
$$;
