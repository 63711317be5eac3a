import { execFileSync } from 'node:child_process';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

type Page = {
  data: Array<{ id: string; model: string; provider_name: string; created_at: string; total_cost: number }>;
  next_cursor: string | null;
};
const messages = [{ role: 'user' as const, content: 'List me' }];

/** A new standard key of the stack's workspace, so its generations are exactly those made here. */
async function freshKey(name: string): Promise<{ key: string; hash: string }> {
  const created = await call('/keys', { key: stack.managementKey, body: { name } });
  expect(created.status).toBe(201);
  const body = created.body as { key: string; data: { hash: string } };
  return { key: body.key, hash: body.data.hash };
}

describe('GET /v1/generations', () => {
  let key: { key: string; hash: string };
  const made: Array<{ id: string; model: string }> = [];

  beforeAll(async () => {
    key = await freshKey('generations list');
    const client = new OpenAI({ apiKey: key.key, baseURL: stack.baseUrl, maxRetries: 0 });
    for (const model of ['sim/gpt-4o-mini', 'sim/claude-sonnet', 'sim/gpt-4o-mini']) {
      const completion = await client.chat.completions.create({ model, messages });
      made.push({ id: completion.id, model });
    }
    // Every row written (a read of the last one waits for it).
    expect((await call(`/generation?id=${made.at(-1)!.id}`)).status).toBe(200);
  });

  const page = async (query: string, apiKey = stack.apiKey) => {
    const answer = await call(`/generations?${query}`, { key: apiKey });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as Page;
  };

  it('lists the generations of a key newest first, page by page with the cursor', async () => {
    const first = await page(`key_hash=${key.hash}&limit=2`);
    expect(first.data.map((generation) => generation.id)).toEqual([made[2]!.id, made[1]!.id]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await page(`key_hash=${key.hash}&limit=2&cursor=${first.next_cursor}`);
    expect(second.data.map((generation) => generation.id)).toEqual([made[0]!.id]);
    expect(second.next_cursor).toBeNull();
  });

  it('filters by model, provider and time range', async () => {
    const byModel = await page(`key_hash=${key.hash}&model=sim/claude-sonnet`);
    expect(byModel.data.map((generation) => generation.id)).toEqual([made[1]!.id]);
    const provider = byModel.data[0]!.provider_name;
    const byProvider = await page(`key_hash=${key.hash}&provider=${provider}`);
    expect(byProvider.data.map((generation) => generation.id)).toEqual([made[1]!.id]);
    const all = await page(`key_hash=${key.hash}`);
    const middle = all.data[1]!.created_at;
    const until = await page(`key_hash=${key.hash}&to=${middle}`);
    expect(until.data.every((generation) => generation.created_at < middle)).toBe(true);
    const since = await page(`key_hash=${key.hash}&from=${middle}`);
    expect(since.data.every((generation) => generation.created_at >= middle)).toBe(true);
    expect(until.data.length + since.data.length).toBe(3);
    expect((await page(`key_hash=${key.hash}&from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z`)).data).toEqual([]);
  });

  it('shows another workspace nothing, and refuses a bad cursor or filter with 400', async () => {
    const other = JSON.parse(
      execFileSync(process.execPath, ['apps/management/dist/cli/create-key.js', '--json', '--management', '--name', 'other'], {
        env: { ...process.env, MANAGEMENT_DATABASE_URL: stack.managementDatabaseUrl },
        encoding: 'utf8',
      }),
    ) as { secret: string };
    expect((await page(`key_hash=${key.hash}`, other.secret)).data).toEqual([]);
    for (const query of ['cursor=bm90LWEtY3Vyc29y', 'limit=0', 'limit=101', 'from=yesterday', 'key_hash=abc', 'colour=red']) {
      const refused = await call(`/generations?${query}`);
      expect(refused.status, query).toBe(400);
      envelopeOf(refused);
    }
  });
});
