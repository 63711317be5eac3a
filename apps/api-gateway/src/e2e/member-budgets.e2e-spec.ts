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
async function seedMember(workspaceId: string): Promise<string> {
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
  return apiKey;
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

beforeAll(async () => {
  await database.connect();
  tenant = await seedWorkspace(database, '100');
  otherMemberKey = await seedMember(tenant.workspaceId);
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
