import { OpenRouter } from '@openrouter/sdk';
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';
import { seedWorkspace } from './seed-workspace.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });
const chatBody = { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hi' }] };

interface KeyView {
  hash: string;
  limit: number | null;
  limit_remaining: number | null;
  usage: number;
  usage_daily: number;
  usage_weekly: number;
  usage_monthly: number;
  byok_usage: number;
  last_used_at: string | null;
}
interface Chat {
  usage: { cost: number };
}

/** Chat with a key; the cost of a 200 as the decimal literal JSON carried (String of a number round-trips). */
async function chat(key: string): Promise<{ status: number; cost?: string; body: unknown }> {
  const result = await call('/chat/completions', { key, body: chatBody });
  return { ...result, cost: result.status === 200 ? String((result.body as Chat).usage.cost) : undefined };
}

/** The exact decimal sum, computed by PostgreSQL's numeric (no float on the way). */
async function exactSum(costs: string[]): Promise<string> {
  const { rows } = await database.query<{ total: string }>(
    'SELECT coalesce(sum(c::numeric), 0)::text AS total FROM unnest($1::text[]) AS c',
    [costs],
  );
  return rows[0]!.total;
}

async function numericEqual(a: string, b: string): Promise<boolean> {
  const { rows } = await database.query<{ equal: boolean }>('SELECT $1::numeric = $2::numeric AS equal', [a, b]);
  return rows[0]!.equal;
}

async function getKey(hash: string): Promise<KeyView> {
  const result = await call(`/keys/${hash}`, { key: stack.managementKey });
  expect(result.status).toBe(200);
  return (result.body as { data: KeyView }).data;
}

/** Chats until one is refused (a chat whose worst case does not fit what is left is refused at once). */
async function chatUntilRefused(key: string, costs: string[]): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const result = await chat(key);
    if (result.status !== 200) return result;
    costs.push(result.cost!);
    if (Date.now() > deadline) throw new Error(`never refused after ${costs.length} chats`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Keys with spend limits and workspace credits, end to end: the keys are made and changed
 * through the OpenRouter SDK, chats run through the gateway on the simulator, inference
 * publishes a usage event per generation, management counts it, and the gateway refuses
 * with 402 once the limit or the credits are used up.
 */
describe('spend limits, usage and credits through the gateway', () => {
  const sdk = new OpenRouter({ apiKey: stack.managementKey, serverURL: stack.baseUrl });

  beforeAll(() => database.connect());
  afterAll(() => database.end());

  it('creates a limited key, refuses it with 402 at the limit, and serves it again when the limit is raised', async () => {
    const created = await sdk.apiKeys.create({ requestBody: { name: `limited-${randomUUID()}`, limit: 0.000000001, limitReset: 'daily' } });
    expect(created.key).toMatch(/^sk-gw-v1-/);
    expect(created.data).toMatchObject({ limit: 0.000000001, limitRemaining: 0.000000001, limitReset: 'daily', usage: 0, disabled: false });
    expect(created.data.hash).toBe(sha256(created.key));

    // A chat's worst case does not fit in the limit: refused before any provider is paid.
    const costs: string[] = [];
    const refused = await chat(created.key);
    expect(refused.status).toBe(402);
    expect(envelopeOf(refused).metadata).toMatchObject({ error_type: 'payment_required', reason: 'key_limit_reached' });

    const blocked = await getKey(created.data.hash);
    expect([blocked.usage, blocked.limit_remaining]).toEqual([0, 0.000000001]);

    const raised = await sdk.apiKeys.update({ hash: created.data.hash, requestBody: { limit: 10 } });
    expect(raised.data.limit).toBe(10);
    const again = await chat(created.key);
    expect(again.status).toBe(200);
    costs.push(again.cost!);

    // Every generation counted exactly once: the counters equal the sum of the costs.
    const total = await exactSum(costs);
    await expect.poll(async () => (await getKey(created.data.hash)).usage, { timeout: 30_000 }).toBe(Number(total));
    const view = await getKey(created.data.hash);
    expect([view.usage_daily, view.usage_weekly, view.usage_monthly]).toEqual([view.usage, view.usage, view.usage]);
    expect(view.limit_remaining).toBe(
      Number((await database.query<{ r: string }>('SELECT (10 - $1::numeric)::text AS r', [total])).rows[0]!.r),
    );
    const { rows } = await database.query<{ usage: string; ledger: string; count: string }>(
      `SELECT k.usage::text AS usage, sum(l.cost)::text AS ledger, count(*)::text AS count
       FROM api_keys k JOIN usage_ledger l ON l.key_hash = k.hash WHERE k.hash = $1 GROUP BY k.usage`,
      [created.data.hash],
    );
    expect(await numericEqual(rows[0]!.usage, total)).toBe(true);
    expect(await numericEqual(rows[0]!.ledger, total)).toBe(true);
    expect(Number(rows[0]!.count)).toBe(costs.length);
  }, 60_000);

  it('records last_used_at from the gateway batches, without a write per request', async () => {
    const created = await sdk.apiKeys.create({ requestBody: { name: `used-${randomUUID()}` } });
    expect((await getKey(created.data.hash)).last_used_at).toBeNull();
    const before = Date.now();
    expect((await call('/models', { key: created.key })).status).toBe(200);
    await expect.poll(async () => (await getKey(created.data.hash)).last_used_at, { timeout: 30_000, interval: 500 }).not.toBeNull();
    const lastUsed = Date.parse((await getKey(created.data.hash)).last_used_at!);
    expect(lastUsed).toBeGreaterThanOrEqual(before - 1000);
  });

  it('deletes a key through the SDK, after which it no longer authenticates', async () => {
    const created = await sdk.apiKeys.create({ requestBody: { name: `doomed-${randomUUID()}` } });
    expect((await call('/models', { key: created.key })).status).toBe(200);
    await expect(sdk.apiKeys.delete({ hash: created.data.hash })).resolves.toEqual({ deleted: true });
    await expect.poll(async () => (await call('/models', { key: created.key })).status).toBe(401);
    expect((await call(`/keys/${created.data.hash}`, { key: stack.managementKey })).status).toBe(404);
  });

  it('disables a key with PATCH so the gateway refuses it at once', async () => {
    const created = await sdk.apiKeys.create({ requestBody: { name: `disabled-${randomUUID()}` } });
    expect((await call('/models', { key: created.key })).status).toBe(200);
    const patched = await call(`/keys/${created.data.hash}`, { key: stack.managementKey, method: 'PATCH', body: { disabled: true } });
    expect(patched.status).toBe(200);
    expect((patched.body as { data: KeyView & { disabled: boolean } }).data.disabled).toBe(true);
    await expect.poll(async () => (await call('/models', { key: created.key })).status).toBe(401);
  });

  it.each([
    ['POST', '/keys', { name: 'x', expires_at: '2031-01-01T00:00:00+02:00' }, 400],
    ['POST', '/keys', { name: 'x', limit_reset: 'hourly' }, 400],
    ['POST', '/keys', { name: 'x', unknown_field: 1 }, 400],
    ['PATCH', `/keys/${'f'.repeat(64)}`, { name: 'x' }, 404],
    ['DELETE', `/keys/${'f'.repeat(64)}`, undefined, 404],
    ['PATCH', '/keys/not-a-hash', { name: 'x' }, 404],
    ['POST', '/credits', { amount: -1 }, 400],
  ])('%s %s %j answers %i with the envelope', async (method, path, body, status) => {
    const result = await call(path, { key: stack.managementKey, method, body });
    expect(result.status).toBe(status);
    envelopeOf(result);
  });

  it('refuses key writes and adding credits to a standard key with 401', async () => {
    for (const [method, path, body] of [
      ['POST', '/keys', { name: 'x' }],
      ['PATCH', `/keys/${sha256(stack.apiKey)}`, { name: 'x' }],
      ['DELETE', `/keys/${sha256(stack.apiKey)}`, undefined],
      ['POST', '/credits', { amount: 1 }],
    ] as const) {
      const result = await call(path, { key: stack.apiKey, method, body });
      expect(result.status, `${method} ${path}`).toBe(401);
      expect(envelopeOf(result).metadata?.reason).toBe('management_key_required');
    }
  });

  it('runs a workspace out of credits (402), and serves it again once credits are added', async () => {
    const tenant = await seedWorkspace(database, '0.000000001');
    const sdkOfTenant = new OpenRouter({ apiKey: tenant.managementKey, serverURL: stack.baseUrl });
    // Another workspace's key is invisible to this management key: 404, as for an unknown hash.
    const foreign = await call(`/keys/${sha256(stack.apiKey)}`, { key: tenant.managementKey, method: 'PATCH', body: { name: 'stolen' } });
    expect(foreign.status).toBe(404);

    const costs: string[] = [];
    const refused = await chatUntilRefused(tenant.apiKey, costs);
    expect(refused.status).toBe(402);
    expect(envelopeOf(refused).metadata).toMatchObject({ error_type: 'payment_required', reason: 'insufficient_credits' });
    // Generations that finished before the refusal may still be in the consumer's queue: wait for them.
    const spent = await exactSum(costs);
    await expect.poll(async () => numericEqual(String((await sdkOfTenant.credits.getCredits()).data.totalUsage), spent)).toBe(true);
    expect((await sdkOfTenant.credits.getCredits()).data.totalCredits).toBe(0.000000001);

    const added = await call('/credits', { key: tenant.managementKey, body: { amount: 5 } });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ data: { total_credits: 5.000000001, total_usage: Number(spent) } });
    await expect.poll(async () => (await chat(tenant.apiKey)).status).toBe(200);
  });
});
