/**
 * The budget counters' part of the usage count (issue 31 item 5): a CTE of COUNT_SQL that adds
 * each counted generation to its workspace's and its member's (the key's creator's) spend per
 * period, in the statement that inserts the ledger row, so exactly once. It runs under the
 * workspace row locks of that statement, so two replicas never upsert the same rows at once.
 * A key deleted before its generation is counted still counts for the workspace.
 */
export const BUDGET_SPEND_CTE = `
), budget_counted AS (
  INSERT INTO budget_spend (workspace_id, user_id, interval, period_start, spend, byok_spend)
  SELECT c.workspace_id, scope.user_id, p.interval, p.period_start, sum(c.cost), sum(c.byok)
  FROM counted c
  LEFT JOIN api_keys k ON k.hash = c.key_hash
  CROSS JOIN LATERAL (VALUES ('00000000-0000-0000-0000-000000000000'::uuid), (k.creator_user_id)) AS scope(user_id)
  CROSS JOIN LATERAL (VALUES ('daily'::"BudgetInterval", c.day), ('weekly'::"BudgetInterval", c.week),
      ('monthly'::"BudgetInterval", c.month), ('lifetime'::"BudgetInterval", DATE '1970-01-01')) AS p(interval, period_start)
  WHERE scope.user_id IS NOT NULL AND (SELECT count(*) FROM locked_workspaces) >= 0
  GROUP BY c.workspace_id, scope.user_id, p.interval, p.period_start
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (workspace_id, user_id, interval, period_start) DO UPDATE
    SET spend = budget_spend.spend + EXCLUDED.spend, byok_spend = budget_spend.byok_spend + EXCLUDED.byok_spend`;
