-- Workspaces as @openrouter/sdk shows them, members with an admin role, budgets per workspace and
-- per member with their spend counters, guardrails and their assignments, the audit log
-- (issue 31 items 5, 6, 7; ADRs 0119, 0128). Additive only: nothing existing changes meaning.

-- Not used in this migration (a new enum value cannot be used in the transaction that adds it).
ALTER TYPE "WorkspaceRole" ADD VALUE IF NOT EXISTS 'admin';

CREATE TYPE "BudgetInterval" AS ENUM ('daily', 'weekly', 'monthly', 'lifetime');

ALTER TABLE "workspaces"
    ADD COLUMN "slug" TEXT,
    ADD COLUMN "description" TEXT,
    ADD COLUMN "created_by" UUID,
    ADD COLUMN "default_text_model" TEXT,
    ADD COLUMN "default_image_model" TEXT,
    ADD COLUMN "default_provider_sort" TEXT,
    ADD COLUMN "disabled_server_tools" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    ADD COLUMN "include_byok_in_budgets" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "io_logging_sampling_rate" DOUBLE PRECISION NOT NULL DEFAULT 1,
    ADD COLUMN "is_data_discount_logging_enabled" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "is_observability_broadcast_enabled" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "is_observability_io_logging_enabled" BOOLEAN NOT NULL DEFAULT false;

CREATE INDEX "workspaces_slug_idx" ON "workspaces"("slug");

CREATE TABLE "guardrails" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "is_workspace_default" BOOLEAN NOT NULL DEFAULT false,
    "allowed_models" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "ignored_models" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "allowed_providers" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "ignored_providers" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "limit_usd" DECIMAL(24,12),
    "reset_interval" "LimitReset",
    "include_byok_in_budgets" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "guardrails_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "guardrails_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "guardrails_workspace_id_created_at_idx" ON "guardrails"("workspace_id", "created_at");
-- One default guardrail per workspace (not expressible in the Prisma schema).
CREATE UNIQUE INDEX "guardrails_one_default_per_workspace" ON "guardrails"("workspace_id") WHERE "is_workspace_default";

-- Every workspace has its default guardrail (the SDK's default_guardrail_id is never null), however
-- the workspace row was made (API, CLI, tests inserting rows).
CREATE FUNCTION "workspace_default_guardrail"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "guardrails" ("id", "workspace_id", "name", "is_workspace_default") VALUES (gen_random_uuid(), NEW."id", 'Workspace default', true);
  RETURN NEW;
END $$;
CREATE TRIGGER "workspaces_default_guardrail" AFTER INSERT ON "workspaces" FOR EACH ROW EXECUTE FUNCTION "workspace_default_guardrail"();
INSERT INTO "guardrails" ("id", "workspace_id", "name", "is_workspace_default")
SELECT gen_random_uuid(), "id", 'Workspace default', true FROM "workspaces";

CREATE TABLE "guardrail_key_assignments" (
    "id" UUID NOT NULL,
    "guardrail_id" UUID NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "assigned_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "guardrail_key_assignments_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "guardrail_key_assignments_guardrail_id_fkey" FOREIGN KEY ("guardrail_id") REFERENCES "guardrails"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "guardrail_key_assignments_key_hash_fkey" FOREIGN KEY ("key_hash") REFERENCES "api_keys"("hash") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "guardrail_key_assignments_guardrail_id_key_hash_key" ON "guardrail_key_assignments"("guardrail_id", "key_hash");
CREATE INDEX "guardrail_key_assignments_key_hash_idx" ON "guardrail_key_assignments"("key_hash");

CREATE TABLE "guardrail_member_assignments" (
    "id" UUID NOT NULL,
    "guardrail_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "assigned_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "guardrail_member_assignments_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "guardrail_member_assignments_guardrail_id_fkey" FOREIGN KEY ("guardrail_id") REFERENCES "guardrails"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "guardrail_member_assignments_member_fkey" FOREIGN KEY ("workspace_id", "user_id") REFERENCES "workspace_members"("workspace_id", "user_id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "guardrail_member_assignments_guardrail_id_user_id_key" ON "guardrail_member_assignments"("guardrail_id", "user_id");
CREATE INDEX "guardrail_member_assignments_workspace_id_user_id_idx" ON "guardrail_member_assignments"("workspace_id", "user_id");

CREATE TABLE "workspace_budgets" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "interval" "BudgetInterval" NOT NULL,
    "limit_usd" DECIMAL(24,12) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "workspace_budgets_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "workspace_budgets_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "workspace_budgets_workspace_id_interval_key" ON "workspace_budgets"("workspace_id", "interval");

CREATE TABLE "member_budgets" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "interval" "BudgetInterval" NOT NULL,
    "limit_usd" DECIMAL(24,12) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "member_budgets_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "member_budgets_member_fkey" FOREIGN KEY ("workspace_id", "user_id") REFERENCES "workspace_members"("workspace_id", "user_id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "member_budgets_workspace_id_user_id_interval_key" ON "member_budgets"("workspace_id", "user_id", "interval");

-- Spend per workspace (user_id the nil UUID) and per member, per period, kept by the usage count in
-- the statement that counts a generation, so exactly once. A period's row is keyed by its first
-- day (UTC; weeks from Monday; lifetime 1970-01-01): a late event adds to its own period.
CREATE TABLE "budget_spend" (
    "workspace_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "interval" "BudgetInterval" NOT NULL,
    "period_start" DATE NOT NULL,
    "spend" DECIMAL(38,18) NOT NULL DEFAULT 0,
    "byok_spend" DECIMAL(38,18) NOT NULL DEFAULT 0,
    CONSTRAINT "budget_spend_pkey" PRIMARY KEY ("workspace_id", "user_id", "interval", "period_start")
);

-- For spend_reserve: every budget that caps a key at p_now, tightest first, with its counted spend:
-- the workspace's, its member's (the key's creator, p_user), and each guardrail limit governing it:
-- 'guardrail_member' caps the member's spend (a guardrail assigned to the member, or the workspace
-- default), 'guardrail_key' the key's own (a guardrail assigned to the key). Holds in flight are the
-- caller's to subtract, per scope (the workspace's; the member's keys'; the key's). No row: no
-- budget applies. BYOK spend counts where the workspace (budgets) or the guardrail says so.
CREATE FUNCTION "budget_headroom"(p_workspace UUID, p_user UUID, p_key CHAR(64), p_now TIMESTAMPTZ)
RETURNS TABLE (scope TEXT, budget_id UUID, budget_interval "BudgetInterval", limit_usd NUMERIC, spent NUMERIC, remaining NUMERIC)
LANGUAGE sql STABLE AS $$
  WITH periods(interval, period_start) AS (VALUES
      ('daily'::"BudgetInterval", (p_now AT TIME ZONE 'UTC')::date),
      ('weekly'::"BudgetInterval", date_trunc('week', p_now AT TIME ZONE 'UTC')::date),
      ('monthly'::"BudgetInterval", date_trunc('month', p_now AT TIME ZONE 'UTC')::date),
      ('lifetime'::"BudgetInterval", DATE '1970-01-01')
  ), budgets AS (
    -- user_id: whose budget_spend counts (the nil UUID: the whole workspace; NULL: the key's counters).
    SELECT 'workspace' AS scope, b.id, b.interval, b.limit_usd, '00000000-0000-0000-0000-000000000000'::uuid AS user_id,
      w.include_byok_in_budgets AS with_byok
    FROM "workspace_budgets" b JOIN "workspaces" w ON w.id = b.workspace_id WHERE b.workspace_id = p_workspace
    UNION ALL
    SELECT 'member', b.id, b.interval, b.limit_usd, b.user_id, w.include_byok_in_budgets
    FROM "member_budgets" b JOIN "workspaces" w ON w.id = b.workspace_id WHERE b.workspace_id = p_workspace AND b.user_id = p_user
    UNION ALL
    SELECT 'guardrail_member', g.id, COALESCE(g.reset_interval::text, 'lifetime')::"BudgetInterval", g.limit_usd, p_user,
      g.include_byok_in_budgets
    FROM "guardrails" g
    WHERE g.workspace_id = p_workspace AND g.limit_usd IS NOT NULL AND p_user IS NOT NULL
      AND (g.is_workspace_default
        OR EXISTS (SELECT 1 FROM "guardrail_member_assignments" a WHERE a.guardrail_id = g.id AND a.user_id = p_user))
    UNION ALL
    SELECT 'guardrail_key', g.id, COALESCE(g.reset_interval::text, 'lifetime')::"BudgetInterval", g.limit_usd, NULL::uuid,
      g.include_byok_in_budgets
    FROM "guardrails" g JOIN "guardrail_key_assignments" a ON a.guardrail_id = g.id AND a.key_hash = p_key
    WHERE g.workspace_id = p_workspace AND g.limit_usd IS NOT NULL
  )
  SELECT b.scope, b.id, b.interval, b.limit_usd, s.spent, b.limit_usd - s.spent
  FROM budgets b
  JOIN periods p ON p.interval = b.interval
  CROSS JOIN LATERAL (
    SELECT CASE WHEN b.user_id IS NOT NULL THEN COALESCE((
        SELECT sum(bs.spend + CASE WHEN b.with_byok THEN bs.byok_spend ELSE 0 END) FROM "budget_spend" bs
        WHERE bs.workspace_id = p_workspace AND bs.user_id = b.user_id AND bs.interval = b.interval AND bs.period_start = p.period_start
      ), 0)
      ELSE COALESCE((
        SELECT CASE b.interval
          WHEN 'lifetime' THEN k.usage + CASE WHEN b.with_byok THEN k.byok_usage ELSE 0 END
          WHEN 'daily' THEN CASE WHEN k.daily_period_start = p.period_start
            THEN k.usage_daily + CASE WHEN b.with_byok THEN k.byok_usage_daily ELSE 0 END ELSE 0 END
          WHEN 'weekly' THEN CASE WHEN k.weekly_period_start = p.period_start
            THEN k.usage_weekly + CASE WHEN b.with_byok THEN k.byok_usage_weekly ELSE 0 END ELSE 0 END
          ELSE CASE WHEN k.monthly_period_start = p.period_start
            THEN k.usage_monthly + CASE WHEN b.with_byok THEN k.byok_usage_monthly ELSE 0 END ELSE 0 END
        END
        FROM "api_keys" k WHERE k.hash = p_key
      ), 0) END AS spent
  ) s
  ORDER BY b.limit_usd - s.spent ASC, b.scope
$$;

CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "workspace_id" UUID,
    "actor_kind" TEXT NOT NULL,
    "actor_user_id" UUID,
    "actor_key_hash" CHAR(64),
    "action" TEXT NOT NULL,
    "resource_type" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "ip" TEXT,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "audit_log_workspace_id_id_idx" ON "audit_log"("workspace_id", "id");
CREATE INDEX "audit_log_created_at_idx" ON "audit_log"("created_at");
