import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { APIError } from 'openai';
import pg from 'pg';
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, stack } from './e2e-helpers.js';
import { seedWorkspace, type SeededWorkspace } from './seed-workspace.js';

const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const question = 'What is a gateway?';

let tenant: SeededWorkspace;
let otherMemberKey: string;

/** A second member of the tenant's workspace with a standard key of their own. */
async function seedMember(workspaceId: string): Promise<{ apiKey: string; userId: string }> {
  const userId = randomUUID();
  const apiKey = `sk-gw-v1-${randomUUID().replace(/-/g, '')}`;
  await database.query(`INSERT INTO users (id, email, name, default_workspace_id, updated_at) VALUES ($1, $2, 'Other', $3, now())`, [
    userId,
    `${userId}@example.com`,
    workspaceId,
  ]);
  await database.query(`INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'member')`, [workspaceId, userId]);
  await database.query(
    `INSERT INTO api_keys (hash, name, label, kind, workspace_id, creator_user_id, updated_at)
     VALUES ($1, 'other member', 'sk-gw-v1-xxx...yyyy', 'standard', $2, $3, now())`,
    [sha256(apiKey), workspaceId, userId],
  );
  return { apiKey, userId };
}

/** Every generating entry point, with a worst case far above the budget's one ten-millionth of a dollar. */
function entryPoints(apiKey: string): [string, () => Promise<unknown>][] {
  const openai = new OpenAI({ apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey, baseURL: stack.baseUrl.replace(/\/v1$/, ''), maxRetries: 0 });
  return [
    [
      'chat',
      () => openai.chat.completions.create({ model: 'sim/gpt-4o-mini', max_tokens: 500, messages: [{ role: 'user', content: question }] }),
    ],
    ['responses', () => openai.responses.create({ model: 'sim/gpt-4o-mini', max_output_tokens: 500, input: question })],
    [
      'messages',
      () => anthropic.messages.create({ model: 'sim/claude-sonnet', max_tokens: 500, messages: [{ role: 'user', content: question }] }),
    ],
    ['embeddings', () => openai.embeddings.create({ model: 'sim/text-embedding-3-small', input: question.repeat(50) })],
    [
      'server tools',
      () =>
        openai.chat.completions.create({
          model: 'sim/gpt-4o-mini',
          max_tokens: 500,
          messages: [{ role: 'user', content: `Search the web: ${question}` }],
          tools: [{ type: 'openrouter:web_search' } as never],
        }),
    ],
  ];
}

/** POST /v1/batches (no SDK call takes inline requests): the 202's body, or an error with the status and envelope as the SDKs throw. */
async function createBatch(apiKey: string): Promise<unknown> {
  const requests = [{ custom_id: 'line-0', body: { max_tokens: 500, messages: [{ role: 'user', content: question }] } }];
  const created = await call('/batches', {
    key: apiKey,
    body: { endpoint: '/v1/chat/completions', model: 'sim/gpt-4o-mini', completion_window: '24h', requests },
  });
  if (created.status === 202) return created.body;
  throw Object.assign(new Error(`POST /v1/batches answered ${created.status}`), { status: created.status, error: created.body });
}

beforeAll(async () => {
  await database.connect();
  tenant = await seedWorkspace(database, '100');
  otherMemberKey = (await seedMember(tenant.workspaceId)).apiKey;
  const budget = await call(`/workspaces/${tenant.workspaceId}/members/${tenant.userId}/budgets/daily`, {
    key: tenant.managementKey,
    method: 'PUT',
    body: { limit_usd: 0.0000001 },
  });
  expect(budget.status).toBe(200);
});
afterAll(() => database.end());

/** Issue 31 item 5: a member's budget caps every entry point; another member of the workspace is served. */
describe('a member over budget', () => {
  it.each([0, 1, 2, 3, 4])('is refused with 402 member_budget_reached on entry point %i, before any provider is paid', async (index) => {
    const [name, ask] = entryPoints(tenant.apiKey)[index]!;
    const error = await ask().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error, name).toBeInstanceOf(Error);
    expect((error as APIError).status, name).toBe(402);
    expect(JSON.stringify((error as APIError).error), name).toContain('member_budget_reached');
  });

  it('leaves another member of the same workspace served on every entry point', async () => {
    for (const [name, ask] of entryPoints(otherMemberKey)) await expect(ask(), name).resolves.toBeTruthy();
  });
});

/**
 * A batch's cost is known only once its lines ran, so its creation is refused where nothing of the
 * budget is left (the reservation's smallest amount does not fit), not where a worst case would not.
 */
describe('a member whose budget is spent', () => {
  it('is refused a batch with 402 member_budget_reached; another member of the workspace opens one', async () => {
    const member = await seedMember(tenant.workspaceId);
    // Real spend first: a chat, counted into the member's budget spend.
    const openai = new OpenAI({ apiKey: member.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
    const chat = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: question }] });
    const cost = (chat.usage as unknown as { cost: number }).cost;
    expect(cost).toBeGreaterThan(0.0000001);
    const counted = async () =>
      (
        await database.query(`SELECT 1 FROM budget_spend WHERE workspace_id = $1 AND user_id = $2 AND interval = 'daily' AND spend > 0`, [
          tenant.workspaceId,
          member.userId,
        ])
      ).rowCount;
    for (const deadline = Date.now() + 30_000; (await counted()) === 0 && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 200));
    // Then a daily budget below what was spent: nothing of it is left.
    const budget = await call(`/workspaces/${tenant.workspaceId}/members/${member.userId}/budgets/daily`, {
      key: tenant.managementKey,
      method: 'PUT',
      body: { limit_usd: 0.0000001 },
    });
    expect(budget.status).toBe(200);
    const error = await createBatch(member.apiKey).then(
      () => undefined,
      (caught: unknown) => caught as { status: number; error: unknown },
    );
    expect(error?.status).toBe(402);
    const envelope = (error!.error as { error: { code: number; message: string; metadata: { reason: string } } }).error;
    expect(envelope).toMatchObject({ code: 402, metadata: { reason: 'member_budget_reached' } });
    expect(envelope.message).toEqual(expect.any(String));
    await expect(createBatch(otherMemberKey)).resolves.toMatchObject({ id: expect.stringMatching(/^batch_/) });
  });
});

/** A batch is charged once when read; that charge is the member's and the workspace's spend, in the shared counters. */
describe("a batch's charge", () => {
  it("counts once toward its member's budget spend: exactly the batch's cost", async () => {
    const member = await seedMember(tenant.workspaceId);
    const batch = (await createBatch(member.apiKey)) as { id: string };
    let read: { status: number; body: unknown } | undefined;
    for (const deadline = Date.now() + 90_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      read = await call(`/batches/${batch.id}`, { key: member.apiKey });
      const status = (read.body as { status: string }).status;
      if (status !== 'validating' && status !== 'in_progress') break;
    }
    expect(read!.status).toBe(200);
    const { status, usage } = read!.body as { status: string; usage: { cost: number } };
    expect(status).toBe('completed');
    expect(usage.cost).toBeGreaterThan(0);
    // Counted by management's consumer moments after the read's charge: read until it shows (30 s at most).
    const spend = async () =>
      (
        await database.query<{ interval: string; equal: boolean }>(
          `SELECT interval::text, spend = $3::numeric AS equal FROM budget_spend WHERE workspace_id = $1 AND user_id = $2 ORDER BY 1`,
          [tenant.workspaceId, member.userId, String(usage.cost)],
        )
      ).rows;
    for (const deadline = Date.now() + 30_000; (await spend()).length < 4 && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await spend()).toEqual(['daily', 'lifetime', 'monthly', 'weekly'].map((interval) => ({ interval, equal: true })));
    const ledger = await database.query('SELECT 1 FROM usage_ledger WHERE generation_id = $1', [batch.id]);
    expect(ledger.rowCount).toBe(1);
  });
});
