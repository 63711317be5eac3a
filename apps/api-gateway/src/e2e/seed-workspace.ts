import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A workspace of its own with `credits`, a management key and a standard key (straight into the database). */
export interface SeededWorkspace {
  workspaceId: string;
  userId: string;
  managementKey: string;
  apiKey: string;
}

export async function seedWorkspace(database: pg.Client, credits: string): Promise<SeededWorkspace> {
  const workspaceId = randomUUID();
  const userId = randomUUID();
  const managementKey = `sk-gw-v1-${randomUUID().replace(/-/g, '')}`;
  const apiKey = `sk-gw-v1-${randomUUID().replace(/-/g, '')}`;
  await database.query(`INSERT INTO workspaces (id, name, updated_at, credits_total) VALUES ($1, 'Tenant', now(), $2)`, [
    workspaceId,
    credits,
  ]);
  await database.query(`INSERT INTO users (id, email, name, default_workspace_id, updated_at) VALUES ($1, $2, 'Tenant', $3, now())`, [
    userId,
    `${userId}@example.com`,
    workspaceId,
  ]);
  await database.query(`INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner')`, [workspaceId, userId]);
  for (const [secret, kind] of [
    [managementKey, 'management'],
    [apiKey, 'standard'],
  ]) {
    await database.query(
      `INSERT INTO api_keys (hash, name, label, kind, workspace_id, creator_user_id, updated_at)
       VALUES ($1, $2, 'sk-gw-v1-xxx...yyyy', $3::"ApiKeyKind", $4, $5, now())`,
      [sha256(secret!), `tenant ${kind}`, kind, workspaceId, userId],
    );
  }
  return { workspaceId, userId, managementKey, apiKey };
}
