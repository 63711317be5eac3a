-- Workspace and member budgets and guardrail spend limits join the reservation (issue 31 item 5):
-- a lease is granted only within every budget capping its key, less the leases that budget covers,
-- under the same workspace row lock the usage count (which writes budget_spend) takes.
CREATE OR REPLACE FUNCTION "spend_reserve"(p_id UUID, p_workspace UUID, p_key CHAR(64), p_min NUMERIC, p_want NUMERIC,
    p_ttl_seconds INTEGER, p_day DATE, p_week DATE, p_month DATE, OUT refused TEXT, OUT granted NUMERIC)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_balance NUMERIC;
  v_key "api_keys"%ROWTYPE;
  v_spent NUMERIC;
  v_held_workspace NUMERIC;
  v_held_key NUMERIC;
  v_free NUMERIC;
  v_budget RECORD;
  v_held NUMERIC;
  v_held_member NUMERIC;
BEGIN
  SELECT "credits_total" - "usage_total" INTO v_balance FROM "workspaces" WHERE "id" = p_workspace FOR UPDATE;
  IF NOT FOUND THEN refused := 'insufficient_credits'; RETURN; END IF;
  SELECT * INTO v_key FROM "api_keys" WHERE "hash" = p_key AND "workspace_id" = p_workspace;
  IF NOT FOUND THEN refused := 'key_limit_reached'; RETURN; END IF;
  SELECT COALESCE(sum(GREATEST("amount", 0)), 0), COALESCE(sum(GREATEST("amount", 0)) FILTER (WHERE "key_hash" = p_key), 0)
    INTO v_held_workspace, v_held_key
    FROM "spend_reservations" WHERE "workspace_id" = p_workspace AND "expires_at" > now();
  v_free := v_balance - v_held_workspace;
  IF v_free < p_min THEN refused := 'insufficient_credits'; RETURN; END IF;
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
    IF v_key."limit" - v_spent - v_held_key < p_min THEN refused := 'key_limit_reached'; RETURN; END IF;
    v_free := LEAST(v_free, v_key."limit" - v_spent - v_held_key);
  END IF;
  -- Budgets and guardrail limits capping this key (tightest first), each less the leases it covers.
  FOR v_budget IN SELECT * FROM budget_headroom(p_workspace, v_key."creator_user_id", p_key, now()) LOOP
    IF v_budget.scope IN ('member', 'guardrail_member') AND v_held_member IS NULL THEN
      SELECT COALESCE(sum(GREATEST(r."amount", 0)), 0) INTO v_held_member
        FROM "spend_reservations" r JOIN "api_keys" k ON k."hash" = r."key_hash"
        WHERE r."workspace_id" = p_workspace AND r."expires_at" > now() AND k."creator_user_id" = v_key."creator_user_id";
    END IF;
    v_held := CASE v_budget.scope WHEN 'workspace' THEN v_held_workspace WHEN 'guardrail_key' THEN v_held_key ELSE v_held_member END;
    IF v_budget.remaining - v_held < p_min THEN
      refused := CASE v_budget.scope WHEN 'workspace' THEN 'workspace_budget_reached' WHEN 'member' THEN 'member_budget_reached'
        ELSE 'guardrail_limit_reached' END;
      RETURN;
    END IF;
    v_free := LEAST(v_free, v_budget.remaining - v_held);
  END LOOP;
  granted := LEAST(GREATEST(p_want, p_min), GREATEST(p_min, v_free / 2));
  DELETE FROM "spend_reservations" WHERE "workspace_id" = p_workspace AND ("expires_at" <= now() OR ("released" AND "amount" <= 0));
  INSERT INTO "spend_reservations" ("id", "workspace_id", "key_hash", "amount", "expires_at")
    VALUES (p_id, p_workspace, p_key, granted, now() + make_interval(secs => p_ttl_seconds))
    ON CONFLICT ("id") DO UPDATE SET "amount" = "spend_reservations"."amount" + EXCLUDED."amount", "expires_at" = EXCLUDED."expires_at"
      WHERE NOT "spend_reservations"."released" AND "spend_reservations"."key_hash" = EXCLUDED."key_hash";
  IF NOT FOUND THEN RAISE EXCEPTION 'spend lease % is released or held for another key', p_id; END IF;
END;
$$;
