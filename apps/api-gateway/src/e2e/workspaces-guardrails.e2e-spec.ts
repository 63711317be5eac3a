import { OpenRouter } from '@openrouter/sdk';
import OpenAI from 'openai';
import pg from 'pg';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';
import { seedWorkspace, type SeededWorkspace } from './seed-workspace.js';

/**
 * Issue 31 items 5, 6, 7 through @openrouter/sdk (and raw calls where the SDK hides a status):
 * workspaces with members and budgets, guardrails enforced at routing, the audit log. Two
 * tenants of their own (A and B, seeded straight into the database) keep the shared e2e
 * workspace untouched and give every route a workspace that is not the caller's.
 */

// Each test makes a dozen or more management calls, each a database transaction: on a shared
// machine the first, on a cold stack, took over the default 30 s.
vi.setConfig({ testTimeout: 120_000 });

const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const suffix = () => randomBytes(4).toString('hex');
const sdkFor = (apiKey: string) => new OpenRouter({ apiKey, serverURL: stack.baseUrl });
const openaiFor = (apiKey: string) => new OpenAI({ apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const question = [{ role: 'user' as const, content: 'What is a gateway?' }];

let a: SeededWorkspace;
let b: SeededWorkspace;

interface AuditEntry {
  id: string;
  action: string;
  resource_type: string;
  resource_id: string;
  workspace_id: string;
  actor: { kind: string; user_id: string; key_hash: string; name: string | null };
  origin: string | null;
  before: unknown;
  after: unknown;
  ip: string | null;
  request_id: string | null;
}

/** Every audit row of a workspace, following the cursor (pages of 2, to exercise it). */
async function auditOf(key: string, workspaceId: string, filters = ''): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  let cursor: string | null = null;
  do {
    const page = await call(`/audit-logs?workspace_id=${workspaceId}&limit=2${filters}${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(page.status).toBe(200);
    const body = page.body as { data: AuditEntry[]; next_cursor: string | null };
    entries.push(...body.data);
    cursor = body.next_cursor;
  } while (cursor);
  return entries;
}

/** Polls until `check` passes (usage counting and cache refreshes are asynchronous). */
async function eventually(check: () => Promise<void>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function createKey(managementKey: string, name: string, workspaceId?: string): Promise<{ hash: string; key: string }> {
  const created = await call('/keys', { key: managementKey, body: { name, ...(workspaceId ? { workspace_id: workspaceId } : {}) } });
  expect(created.status).toBe(201);
  const body = created.body as { data: { hash: string }; key: string };
  return { hash: body.data.hash, key: body.key };
}

beforeAll(async () => {
  await database.connect();
  a = await seedWorkspace(database, '100');
  b = await seedWorkspace(database, '100');
});
afterAll(() => database.end());

describe('workspaces through @openrouter/sdk', () => {
  it('creates, reads by id and by slug, lists, updates and deletes a workspace', async () => {
    const sdk = sdkFor(a.managementKey);
    const slug = `team-${suffix()}`;
    const created = await sdk.workspaces.create({ createWorkspaceRequest: { name: 'Team', slug, description: 'for tests' } });
    expect(created.data).toMatchObject({ name: 'Team', slug, description: 'for tests', createdBy: a.userId });
    expect(created.data.defaultGuardrailId).toMatch(/^[0-9a-f-]{36}$/);
    const id = created.data.id;

    expect((await sdk.workspaces.get({ id })).data.slug).toBe(slug);
    expect((await sdk.workspaces.get({ id: slug })).data.id).toBe(id);
    const listed = (await sdk.workspaces.list({})).result;
    expect(listed.data.map((workspace) => workspace.id)).toEqual(expect.arrayContaining([a.workspaceId, id]));
    expect(listed.totalCount).toBe(2);

    const updated = await sdk.workspaces.update({
      id,
      updateWorkspaceRequest: { name: 'Team renamed', defaultTextModel: 'sim/gpt-4o-mini' },
    });
    expect(updated.data).toMatchObject({ name: 'Team renamed', defaultTextModel: 'sim/gpt-4o-mini', slug });

    const duplicate = await call('/workspaces', { key: a.managementKey, body: { name: 'Again', slug } });
    expect(duplicate.status).toBe(409);

    // An active key keeps its workspace; disabled, the workspace may go.
    const key = await createKey(a.managementKey, 'in team', id);
    expect((await call(`/workspaces/${id}`, { key: a.managementKey, method: 'DELETE' })).status).toBe(400);
    expect((await call(`/keys/${key.hash}`, { key: a.managementKey, method: 'PATCH', body: { disabled: true } })).status).toBe(200);
    expect(await sdk.workspaces.delete({ id })).toEqual({ deleted: true });
    expect((await call(`/workspaces/${id}`, { key: a.managementKey })).status).toBe(404);
    // The key's own workspace is never deleted by it.
    expect(envelopeOf(await call(`/workspaces/${a.workspaceId}`, { key: a.managementKey, method: 'DELETE' })).code).toBe(400);
  });

  it('adds and removes members in bulk; a member reads, an admin changes, a removed member sees nothing', async () => {
    const sdk = sdkFor(a.managementKey);
    const id = (await sdk.workspaces.create({ createWorkspaceRequest: { name: 'Shared', slug: `shared-${suffix()}` } })).data.id;
    const added = await sdk.workspaces.bulkAddMembers({ id, bulkAddWorkspaceMembersRequest: { userIds: [b.userId] } });
    expect(added.addedCount).toBe(1);
    expect(added.data[0]).toMatchObject({ userId: b.userId, workspaceId: id, role: 'member' });
    expect((await sdk.workspaces.bulkAddMembers({ id, bulkAddWorkspaceMembersRequest: { userIds: [b.userId] } })).addedCount).toBe(0);
    const members = (await sdk.workspaces.listMembers({ id })).result;
    expect(members.totalCount).toBe(2);
    expect(members.data.map((member) => [member.userId, member.role]).sort()).toEqual(
      [
        [a.userId, 'owner'],
        [b.userId, 'member'],
      ].sort(),
    );
    // Beside the SDK's fields, who each member is (the console lists people, not ids).
    const listed = (await call(`/workspaces/${id}/members`, { key: a.managementKey })).body as {
      data: Array<{ user_id: string; name: string | null; email: string }>;
    };
    expect(listed.data.find((member) => member.user_id === b.userId)).toMatchObject({ name: 'Tenant', email: `${b.userId}@example.com` });

    // B's management key acts as B: a member reads the workspace, may not change it.
    expect((await sdkFor(b.managementKey).workspaces.get({ id })).data.id).toBe(id);
    const refused = await call(`/workspaces/${id}`, { key: b.managementKey, method: 'PATCH', body: { name: 'mine now' } });
    expect(refused.status).toBe(403);
    expect(envelopeOf(refused).metadata).toMatchObject({ reason: 'workspace_role', role: 'member' });
    const org = (await sdkFor(a.managementKey).organization.listMembers({})).result;
    expect(org.data.map((member) => member.id)).toEqual(expect.arrayContaining([a.userId, b.userId]));

    // The last owner stays.
    expect((await call(`/workspaces/${id}/members/remove`, { key: a.managementKey, body: { user_ids: [a.userId] } })).status).toBe(400);
    expect((await sdk.workspaces.bulkRemoveMembers({ id, bulkRemoveWorkspaceMembersRequest: { userIds: [b.userId] } })).removedCount).toBe(
      1,
    );
    expect((await call(`/workspaces/${id}`, { key: b.managementKey })).status).toBe(404);
    const unknownUser = await call(`/workspaces/${id}/members/add`, { key: a.managementKey, body: { user_ids: [randomUUID()] } });
    expect(unknownUser.status).toBe(404);
  });

  it('sets, reads, lists and deletes budgets per workspace and per member', async () => {
    const sdk = sdkFor(a.managementKey);
    const set = await sdk.workspaces.setBudget({
      workspaceRef: a.workspaceId,
      interval: 'weekly',
      upsertWorkspaceBudgetRequest: { limitUsd: 12.5, includeByokInBudgets: true },
    });
    expect(set.data).toMatchObject({ limitUsd: 12.5, resetInterval: 'weekly', workspaceId: a.workspaceId });
    expect(set.includeByokInBudgets).toBe(true);
    const lifetime = await sdk.workspaces.setBudget({
      workspaceRef: a.workspaceId,
      interval: 'lifetime',
      upsertWorkspaceBudgetRequest: { limitUsd: 90 },
    });
    expect(lifetime.data.resetInterval).toBeNull();
    expect((await sdk.workspaces.getBudget({ workspaceRef: a.workspaceId, interval: 'weekly' })).data.limitUsd).toBe(12.5);
    expect((await sdk.workspaces.listBudgets({ workspaceRef: a.workspaceId })).data.map((budget) => budget.resetInterval).sort()).toEqual(
      [null, 'weekly'].sort(),
    );
    expect(await sdk.workspaces.deleteBudget({ workspaceRef: a.workspaceId, interval: 'weekly' })).toEqual({ deleted: true });
    expect(await sdk.workspaces.deleteBudget({ workspaceRef: a.workspaceId, interval: 'lifetime' })).toEqual({ deleted: true });
    expect((await call(`/workspaces/${a.workspaceId}/budgets/weekly`, { key: a.managementKey })).status).toBe(404);
    expect(
      (await call(`/workspaces/${a.workspaceId}/budgets/hourly`, { key: a.managementKey, method: 'PUT', body: { limit_usd: 1 } })).status,
    ).toBe(400);

    const memberBudget = await call(`/workspaces/${a.workspaceId}/members/${a.userId}/budgets/monthly`, {
      key: a.managementKey,
      method: 'PUT',
      body: { limit_usd: 3 },
    });
    expect(memberBudget.status).toBe(200);
    expect((memberBudget.body as { data: unknown }).data).toMatchObject({ user_id: a.userId, limit_usd: 3, reset_interval: 'monthly' });
    const memberBudgets = await call(`/workspaces/${a.workspaceId}/members/${a.userId}/budgets`, { key: a.managementKey });
    expect((memberBudgets.body as { data: unknown[] }).data).toHaveLength(1);
    const gone = await call(`/workspaces/${a.workspaceId}/members/${a.userId}/budgets/monthly`, { key: a.managementKey, method: 'DELETE' });
    expect(gone.body).toEqual({ deleted: true });
  });

  it("counts a member's and the workspace's spend once per generation, and budget_headroom() reads it", async () => {
    const tenant = await seedWorkspace(database, '100');
    for (const path of [
      `/workspaces/${tenant.workspaceId}/budgets/daily`,
      `/workspaces/${tenant.workspaceId}/members/${tenant.userId}/budgets/daily`,
    ]) {
      expect((await call(path, { key: tenant.managementKey, method: 'PUT', body: { limit_usd: 7 } })).status).toBe(200);
    }
    const answers = await Promise.all(
      [1, 2].map(() => openaiFor(tenant.apiKey).chat.completions.create({ model: 'sim/gpt-4o-mini', messages: question })),
    );
    const cost = answers.reduce((sum, answer) => sum + (answer.usage as unknown as { cost: number }).cost, 0);
    expect(cost).toBeGreaterThan(0);
    await eventually(async () => {
      const workspace = await call(`/workspaces/${tenant.workspaceId}/budgets/daily`, { key: tenant.managementKey });
      expect((workspace.body as { data: { usage_usd: number } }).data.usage_usd).toBeCloseTo(cost, 12);
      const member = await call(`/workspaces/${tenant.workspaceId}/members/${tenant.userId}/budgets`, { key: tenant.managementKey });
      expect((member.body as { data: { usage_usd: number }[] }).data[0]!.usage_usd).toBeCloseTo(cost, 12);
    });
    const { rows } = await database.query<{ scope: string; remaining: string; spent: string }>(
      'SELECT scope, remaining::text, spent::text FROM budget_headroom($1, $2, $3, now())',
      [tenant.workspaceId, tenant.userId, sha256(tenant.apiKey)],
    );
    expect(rows.map((row) => row.scope).sort()).toEqual(['member', 'workspace']);
    for (const row of rows) {
      expect(Number(row.spent)).toBeCloseTo(cost, 12);
      expect(Number(row.remaining)).toBeCloseTo(7 - cost, 12);
    }
    // One row per scope, interval and period: nothing counted twice.
    const spendRows = await database.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM budget_spend WHERE workspace_id = $1 AND interval = 'daily'",
      [tenant.workspaceId],
    );
    expect(spendRows.rows[0]!.n).toBe('2');
  });
});

describe('guardrails through @openrouter/sdk', () => {
  it('creates, reads, lists, updates, assigns in bulk and deletes a guardrail', async () => {
    const sdk = sdkFor(a.managementKey);
    const key = await createKey(a.managementKey, `guarded-${suffix()}`);
    const created = await sdk.guardrails.create({
      createGuardrailRequest: { name: 'No OpenAI sim', ignoredProviders: ['simulator-openai'], limitUsd: 5, resetInterval: 'daily' },
    });
    expect(created.data).toMatchObject({
      name: 'No OpenAI sim',
      ignoredProviders: ['simulator-openai'],
      limitUsd: 5,
      workspaceId: a.workspaceId,
    });
    const id = created.data.id;
    expect((await sdk.guardrails.get({ id })).data.name).toBe('No OpenAI sim');
    const listed = (await sdk.guardrails.list({ workspaceId: a.workspaceId })).result;
    expect(listed.data.map((guardrail) => guardrail.id)).toContain(id);
    expect((await sdk.guardrails.update({ id, updateGuardrailRequest: { description: 'tests' } })).data.description).toBe('tests');

    expect((await sdk.guardrails.bulkAssignKeys({ id, bulkAssignKeysRequest: { keyHashes: [key.hash] } })).assignedCount).toBe(1);
    expect((await sdk.guardrails.bulkAssignKeys({ id, bulkAssignKeysRequest: { keyHashes: [key.hash] } })).assignedCount).toBe(0);
    const keyAssignments = (await sdk.guardrails.listGuardrailKeyAssignments({ id })).result;
    expect(keyAssignments.data).toEqual([expect.objectContaining({ keyHash: key.hash, guardrailId: id, assignedBy: a.userId })]);
    expect((await sdk.guardrails.listKeyAssignments({})).result.data.map((row) => row.keyHash)).toContain(key.hash);
    expect((await sdk.guardrails.bulkAssignMembers({ id, bulkAssignMembersRequest: { memberUserIds: [a.userId] } })).assignedCount).toBe(1);
    expect((await sdk.guardrails.listGuardrailMemberAssignments({ id })).result.data[0]).toMatchObject({ userId: a.userId });
    expect((await sdk.guardrails.listMemberAssignments({})).result.totalCount).toBeGreaterThanOrEqual(1);
    expect(
      (await sdk.guardrails.bulkUnassignMembers({ id, bulkUnassignMembersRequest: { memberUserIds: [a.userId] } })).unassignedCount,
    ).toBe(1);
    expect((await sdk.guardrails.bulkUnassignKeys({ id, bulkUnassignKeysRequest: { keyHashes: [key.hash] } })).unassignedCount).toBe(1);
    expect(await sdk.guardrails.delete({ id })).toEqual({ deleted: true });
    expect((await call(`/guardrails/${id}`, { key: a.managementKey })).status).toBe(404);
  });

  it('refuses the policy fields it does not enforce, and a default guardrail cannot be deleted', async () => {
    const zdr = await call('/guardrails', { key: a.managementKey, body: { name: 'zdr', enforce_zdr: true } });
    expect(zdr.status).toBe(400);
    const workspace = await call(`/workspaces/${a.workspaceId}`, { key: a.managementKey });
    const defaultId = (workspace.body as { data: { default_guardrail_id: string } }).data.default_guardrail_id;
    expect((await call(`/guardrails/${defaultId}`, { key: a.managementKey, method: 'DELETE' })).status).toBe(400);
  });

  it('a request only a denied provider can serve is a 403 naming the guardrail; others route around it', async () => {
    const sdk = sdkFor(a.managementKey);
    const key = await createKey(a.managementKey, `routed-${suffix()}`);
    const name = `deny-openai-sim-${suffix()}`;
    const id = (await sdk.guardrails.create({ createGuardrailRequest: { name, ignoredProviders: ['simulator-openai'] } })).data.id;
    await sdk.guardrails.bulkAssignKeys({ id, bulkAssignKeysRequest: { keyHashes: [key.hash] } });

    await eventually(async () => {
      const denied = await call('/chat/completions', { key: key.key, body: { model: 'sim/gpt-4o-mini', messages: question } });
      expect(denied.status).toBe(403);
      const error = envelopeOf(denied);
      expect(error.message).toContain(name);
      expect(error.metadata).toMatchObject({ reason: 'guardrail_denied', guardrail_id: id, guardrail_name: name });
    });
    // A model another provider serves goes there; the body cannot ask its way back.
    const served = await call('/chat/completions', {
      key: key.key,
      body: { model: 'sim/gpt-4o-mini-multi', messages: question, provider: { order: ['simulator-openai'] } },
    });
    expect(served.status).toBe(200);
    expect((served.body as { provider: string }).provider).toBe('Simulator B');
    // The same model through the Responses front door is refused the same way.
    const responses = await call('/responses', { key: key.key, body: { model: 'sim/gpt-4o-mini', input: 'hi' } });
    expect(responses.status).toBe(403);

    await sdk.guardrails.bulkUnassignKeys({ id, bulkUnassignKeysRequest: { keyHashes: [key.hash] } });
    await eventually(async () => {
      expect((await call('/chat/completions', { key: key.key, body: { model: 'sim/gpt-4o-mini', messages: question } })).status).toBe(200);
    });
  });

  it("a guardrail assigned to a member governs the member's keys; a model denied is a 403", async () => {
    const sdk = sdkFor(a.managementKey);
    const name = `no-claude-${suffix()}`;
    const id = (await sdk.guardrails.create({ createGuardrailRequest: { name, ignoredModels: ['sim/claude-sonnet'] } })).data.id;
    await sdk.guardrails.bulkAssignMembers({ id, bulkAssignMembersRequest: { memberUserIds: [a.userId] } });
    await eventually(async () => {
      const denied = await call('/chat/completions', { key: a.apiKey, body: { model: 'sim/claude-sonnet', messages: question } });
      expect(denied.status).toBe(403);
      expect(envelopeOf(denied).message).toContain(name);
    });
    await sdk.guardrails.delete({ id });
    await eventually(async () => {
      expect((await call('/chat/completions', { key: a.apiKey, body: { model: 'sim/claude-sonnet', messages: question } })).status).toBe(
        200,
      );
    });
  });
});

describe('cross-workspace: nothing of another workspace is readable or writable', () => {
  it('answers 404 on every new route for a workspace, guardrail or member of another tenant', async () => {
    const guardrail = (await sdkFor(a.managementKey).guardrails.create({ createGuardrailRequest: { name: `a-only-${suffix()}` } })).data.id;
    const w = a.workspaceId;
    const routes: [string, string, unknown?][] = [
      ['GET', `/workspaces/${w}`],
      ['PATCH', `/workspaces/${w}`, { name: 'x' }],
      ['DELETE', `/workspaces/${w}`],
      ['GET', `/workspaces/${w}/members`],
      ['POST', `/workspaces/${w}/members/add`, { user_ids: [b.userId] }],
      ['POST', `/workspaces/${w}/members/remove`, { user_ids: [a.userId] }],
      ['GET', `/workspaces/${w}/budgets`],
      ['GET', `/workspaces/${w}/budgets/daily`],
      ['PUT', `/workspaces/${w}/budgets/daily`, { limit_usd: 1 }],
      ['DELETE', `/workspaces/${w}/budgets/daily`],
      ['GET', `/workspaces/${w}/members/${a.userId}/budgets`],
      ['PUT', `/workspaces/${w}/members/${a.userId}/budgets/daily`, { limit_usd: 1 }],
      ['DELETE', `/workspaces/${w}/members/${a.userId}/budgets/daily`],
      ['GET', `/guardrails/${guardrail}`],
      ['PATCH', `/guardrails/${guardrail}`, { name: 'x' }],
      ['DELETE', `/guardrails/${guardrail}`],
      ['GET', `/guardrails/${guardrail}/assignments/keys`],
      ['POST', `/guardrails/${guardrail}/assignments/keys`, { key_hashes: [sha256(b.apiKey)] }],
      ['POST', `/guardrails/${guardrail}/assignments/keys/remove`, { key_hashes: [sha256(a.apiKey)] }],
      ['GET', `/guardrails/${guardrail}/assignments/members`],
      ['POST', `/guardrails/${guardrail}/assignments/members`, { member_user_ids: [b.userId] }],
      ['POST', `/guardrails/${guardrail}/assignments/members/remove`, { member_user_ids: [a.userId] }],
      ['GET', `/guardrails?workspace_id=${w}`],
      ['GET', `/audit-logs?workspace_id=${w}`],
      ['POST', '/guardrails', { name: 'into A', workspace_id: w }],
    ];
    for (const [method, path, body] of routes) {
      const answer = await call(path, { key: b.managementKey, method, ...(body === undefined ? {} : { body }) });
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
      envelopeOf(answer);
    }
    // B's own keys cannot be pulled into A's guardrail by A either.
    const foreignKey = await call(`/guardrails/${guardrail}/assignments/keys`, {
      key: a.managementKey,
      body: { key_hashes: [sha256(b.apiKey)] },
    });
    expect(foreignKey.status).toBe(404);
    // Lists show only B's own.
    const sdk = sdkFor(b.managementKey);
    expect((await sdk.workspaces.list({})).result.data.map((workspace) => workspace.id)).not.toContain(w);
    expect((await sdk.guardrails.list({})).result.data.map((row) => row.workspaceId)).not.toContain(w);
    expect((await sdk.guardrails.listKeyAssignments({})).result.data.map((row) => row.guardrailId)).not.toContain(guardrail);
    expect((await sdk.organization.listMembers({})).result.data.map((member) => member.id)).not.toContain(a.userId);
    expect((await call('/guardrails/not-a-uuid', { key: b.managementKey })).status).toBe(404);
    expect((await call(`/workspaces/${randomUUID()}`, { key: b.managementKey })).status).toBe(404);
  });
});

describe('key kinds (spec §4.2, §4.6, §4.7, §5)', () => {
  it('answers a standard key on the management routes as the spec lists them', async () => {
    const keys = await call('/keys', { key: a.apiKey });
    expect([keys.status, envelopeOf(keys).metadata?.reason]).toEqual([401, 'management_key_required']);
    const byok = await call(`/byok/${randomUUID()}`, { key: a.apiKey });
    expect([byok.status, envelopeOf(byok).metadata?.reason]).toEqual([401, 'management_key_required']);
    const preset = await call('/presets/p/chat/completions', { key: a.apiKey, body: { messages: question } });
    expect(preset.status).toBe(403);
  });

  it.each([
    ['GET', '/workspaces'],
    ['POST', '/workspaces', { name: 'n', slug: 'n' }],
    ['GET', `/workspaces/${randomUUID()}`],
    ['PATCH', `/workspaces/${randomUUID()}`, {}],
    ['DELETE', `/workspaces/${randomUUID()}`],
    ['GET', `/workspaces/${randomUUID()}/members`],
    ['POST', `/workspaces/${randomUUID()}/members/add`, { user_ids: [randomUUID()] }],
    ['POST', `/workspaces/${randomUUID()}/members/remove`, { user_ids: [randomUUID()] }],
    ['GET', `/workspaces/${randomUUID()}/budgets`],
    ['GET', `/workspaces/${randomUUID()}/budgets/daily`],
    ['PUT', `/workspaces/${randomUUID()}/budgets/daily`, { limit_usd: 1 }],
    ['DELETE', `/workspaces/${randomUUID()}/budgets/daily`],
    ['GET', `/workspaces/${randomUUID()}/members/${randomUUID()}/budgets`],
    ['PUT', `/workspaces/${randomUUID()}/members/${randomUUID()}/budgets/daily`, { limit_usd: 1 }],
    ['DELETE', `/workspaces/${randomUUID()}/members/${randomUUID()}/budgets/daily`],
    ['GET', '/organization/members'],
    ['GET', '/guardrails'],
    ['POST', '/guardrails', { name: 'g' }],
    ['GET', '/guardrails/assignments/keys'],
    ['GET', '/guardrails/assignments/members'],
    ['GET', `/guardrails/${randomUUID()}`],
    ['PATCH', `/guardrails/${randomUUID()}`, {}],
    ['DELETE', `/guardrails/${randomUUID()}`],
    ['GET', `/guardrails/${randomUUID()}/assignments/keys`],
    ['POST', `/guardrails/${randomUUID()}/assignments/keys`, { key_hashes: ['0'.repeat(64)] }],
    ['POST', `/guardrails/${randomUUID()}/assignments/keys/remove`, { key_hashes: ['0'.repeat(64)] }],
    ['GET', `/guardrails/${randomUUID()}/assignments/members`],
    ['POST', `/guardrails/${randomUUID()}/assignments/members`, { member_user_ids: [randomUUID()] }],
    ['POST', `/guardrails/${randomUUID()}/assignments/members/remove`, { member_user_ids: [randomUUID()] }],
    ['GET', '/audit-logs'],
  ])('%s %s: a standard key is a 401 management_key_required', async (method, path, body?: unknown) => {
    const answer = await call(path, { key: a.apiKey, method, ...(body === undefined ? {} : { body }) });
    expect(answer.status).toBe(401);
    expect(envelopeOf(answer).metadata).toMatchObject({ reason: 'management_key_required' });
  });
});

describe('audit log', () => {
  it('records every management change once, with who, from where, before and after, never a secret', async () => {
    const tenant = await seedWorkspace(database, '10');
    const key = tenant.managementKey;
    const sdk = sdkFor(key);
    const changes: { action: string; resourceId: () => string; requestId?: string }[] = [];
    const track = async (
      action: string,
      answer: Promise<{ status: number; body: unknown; headers: Headers }>,
      idOf: (body: never) => string,
    ) => {
      const result = await answer;
      expect(result.status, `${action}: ${JSON.stringify(result.body)}`).toBeLessThan(300);
      const id = idOf(result.body as never);
      changes.push({ action, resourceId: () => id, requestId: result.headers.get('x-request-id') ?? undefined });
      return result.body as never;
    };

    const created = await track(
      'keys.create',
      call('/keys', { key, body: { name: 'audited' } }),
      (body: { data: { hash: string } }) => body.data.hash,
    );
    const keySecret = (created as { key: string }).key;
    const hash = (created as { data: { hash: string } }).data.hash;
    await track('keys.update', call(`/keys/${hash}`, { key, method: 'PATCH', body: { name: 'renamed' } }), () => hash);
    await track('keys.delete', call(`/keys/${hash}`, { key, method: 'DELETE' }), () => hash);
    const byokSecret = `sk-audit-${randomBytes(12).toString('hex')}`;
    const byok = await track(
      'byok.create',
      call('/byok', { key, body: { provider: 'openai', key: byokSecret } }),
      (body: { data: { id: string } }) => body.data.id,
    );
    const byokId = (byok as { data: { id: string } }).data.id;
    await track(
      'byok.update',
      call(`/byok/${byokId}`, { key, method: 'PATCH', body: { key: `${byokSecret}-2`, name: 'n' } }),
      () => byokId,
    );
    await track('byok.delete', call(`/byok/${byokId}`, { key, method: 'DELETE' }), () => byokId);
    const presetBody = { model: 'sim/gpt-4o-mini', messages: question };
    await track(
      'presets.create',
      call('/presets/audited/chat/completions', { key, body: presetBody }),
      (body: { data: { id: string } }) => body.data.id,
    );
    await track(
      'presets.version.create',
      call('/presets/audited/chat/completions', { key, body: presetBody }),
      (body: { data: { id: string } }) => body.data.id,
    );
    await track('credits.add', call('/credits', { key, body: { amount: 2 } }), () => '');
    const workspace = await track(
      'workspace.create',
      call('/workspaces', { key, body: { name: 'Audited', slug: `audited-${suffix()}` } }),
      (body: { data: { id: string } }) => body.data.id,
    );
    const workspaceId = (workspace as { data: { id: string } }).data.id;
    await track(
      'workspace.update',
      call(`/workspaces/${workspaceId}`, { key, method: 'PATCH', body: { name: 'Audited 2' } }),
      () => workspaceId,
    );
    await track(
      'workspace.members.add',
      call(`/workspaces/${tenant.workspaceId}/members/add`, { key, body: { user_ids: [b.userId] } }),
      () => `${tenant.workspaceId}:${b.userId}`,
    );
    const budget = await track(
      'workspace.budget.set',
      call(`/workspaces/${tenant.workspaceId}/budgets/monthly`, { key, method: 'PUT', body: { limit_usd: 4 } }),
      (body: { data: { id: string } }) => body.data.id,
    );
    const budgetId = (budget as { data: { id: string } }).data.id;
    await track(
      'workspace.budget.delete',
      call(`/workspaces/${tenant.workspaceId}/budgets/monthly`, { key, method: 'DELETE' }),
      () => budgetId,
    );
    await track(
      'member.budget.set',
      call(`/workspaces/${tenant.workspaceId}/members/${b.userId}/budgets/daily`, { key, method: 'PUT', body: { limit_usd: 1 } }),
      (body: { data: { id: string } }) => body.data.id,
    );
    const guardrail = await track(
      'guardrail.create',
      call('/guardrails', { key, body: { name: 'audited', allowed_models: ['sim/gpt-4o-mini'] } }),
      (body: { data: { id: string } }) => body.data.id,
    );
    const guardrailId = (guardrail as { data: { id: string } }).data.id;
    await track(
      'guardrail.update',
      call(`/guardrails/${guardrailId}`, { key, method: 'PATCH', body: { name: 'audited 2' } }),
      () => guardrailId,
    );
    await track(
      'guardrail.members.assign',
      call(`/guardrails/${guardrailId}/assignments/members`, { key, body: { member_user_ids: [b.userId] } }),
      () => '',
    );
    await track(
      'workspace.members.remove',
      call(`/workspaces/${tenant.workspaceId}/members/remove`, { key, body: { user_ids: [b.userId] } }),
      () => `${tenant.workspaceId}:${b.userId}`,
    );
    await track('guardrail.delete', call(`/guardrails/${guardrailId}`, { key, method: 'DELETE' }), () => guardrailId);
    await track('workspace.delete', call(`/workspaces/${workspaceId}`, { key, method: 'DELETE', headers: {} }), () => workspaceId);
    // Reads and refusals change nothing, so they leave no row.
    await sdk.workspaces.list({});
    expect((await call(`/keys/${hash}`, { key, method: 'DELETE' })).status).toBe(404);

    const inTenant = await auditOf(key, tenant.workspaceId);
    const deletedWorkspaceRows = (
      await database.query<{ action: string }>('SELECT action FROM audit_log WHERE workspace_id = $1 ORDER BY id', [workspaceId])
    ).rows;
    expect(deletedWorkspaceRows.map((row) => row.action)).toEqual(['workspace.create', 'workspace.update', 'workspace.delete']);
    const expected = changes.filter(
      (change) =>
        !change.action.startsWith('workspace.') ||
        change.action.startsWith('workspace.members') ||
        change.action.startsWith('workspace.budget'),
    );
    // Newest first, one row each, in the order made.
    expect(inTenant.map((entry) => entry.action).reverse()).toEqual(expected.map((change) => change.action));
    for (const [index, entry] of [...inTenant].reverse().entries()) {
      const change = expected[index]!;
      if (change.resourceId()) expect(entry.resource_id, change.action).toBe(change.resourceId());
      expect(entry.actor).toEqual({ kind: 'management_key', user_id: tenant.userId, key_hash: sha256(key), name: null });
      expect(entry.origin).toBeNull();
      expect(entry.request_id, change.action).toBe(change.requestId);
      expect(entry.ip).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    }
    const text = JSON.stringify(inTenant);
    expect(text).not.toContain(byokSecret);
    expect(text).not.toContain(keySecret);
    const update = inTenant.find((entry) => entry.action === 'keys.update')!;
    expect([(update.before as { name: string }).name, (update.after as { name: string }).name]).toEqual(['audited', 'renamed']);

    // Filters.
    const onlyKeys = await auditOf(key, tenant.workspaceId, '&resource_type=api_key');
    expect(onlyKeys.map((entry) => entry.action)).toEqual(['keys.delete', 'keys.update', 'keys.create']);
    expect(await auditOf(key, tenant.workspaceId, `&action=keys.create&resource_id=${hash}`)).toHaveLength(1);
    expect(await auditOf(key, tenant.workspaceId, '&since=2999-01-01T00:00:00Z')).toHaveLength(0);
    expect((await call('/audit-logs?cursor=abc', { key })).status).toBe(400);
  });

  it('is read by owners and admins only', async () => {
    const sdk = sdkFor(a.managementKey);
    const id = (await sdk.workspaces.create({ createWorkspaceRequest: { name: 'Roles', slug: `roles-${suffix()}` } })).data.id;
    await sdk.workspaces.bulkAddMembers({ id, bulkAddWorkspaceMembersRequest: { userIds: [b.userId] } });
    const member = await call(`/audit-logs?workspace_id=${id}`, { key: b.managementKey });
    expect(member.status).toBe(403);
    await sdk.workspaces.bulkRemoveMembers({ id, bulkRemoveWorkspaceMembersRequest: { userIds: [b.userId] } });
    await call(`/workspaces/${id}/members/add`, { key: a.managementKey, body: { user_ids: [b.userId], role: 'admin' } });
    expect((await call(`/audit-logs?workspace_id=${id}`, { key: b.managementKey })).status).toBe(200);
  });
});
