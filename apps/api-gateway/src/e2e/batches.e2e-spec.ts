import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/*
 * Batches through the whole stack (issue 13): raw HTTP on each of the four endpoints, run by the
 * batch service through inference on the provider simulator; cancel, the 409 delete, the
 * streamed upload's 400 / 413, and the cost guard's 402 with one charge after a top-up.
 * @openrouter/sdk 1.3.19 (the version in node_modules) has no batch calls: raw HTTP only.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const management = new pg.Client({ connectionString: stack.managementDatabaseUrl });
await management.connect();
afterAll(() => management.end());

interface BatchView {
  id: string;
  object: string;
  endpoint: string;
  model: string;
  status: string;
  completion_window: string;
  created_at: number;
  finalized_at: number | null;
  request_counts: { total: number; completed: number; failed: number };
  error: { message: string } | null;
  results: Array<{
    id: string;
    custom_id: string;
    response: { status_code: number; request_id: string | null; body: Record<string, any> } | null;
    error: unknown;
  }> | null;
  usage: Record<string, any>;
  input_file_id: string | null;
  output_file_id: string | null;
  error_file_id: string | null;
  expires_at: number;
}

const TERMINAL = ['completed', 'failed', 'expired', 'cancelled'];

async function submit(body: Record<string, unknown>, key?: string): Promise<BatchView> {
  const result = await call('/batches', { body, key });
  expect(result.status, JSON.stringify(result.body)).toBe(202);
  return result.body as BatchView;
}

async function settled(id: string, key?: string): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await call(`/batches/${id}`, { key });
    if (result.status !== 200 || TERMINAL.includes((result.body as BatchView).status)) return result;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${(result.body as BatchView).status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function exactSum(costs: number[]): Promise<string> {
  const { rows } = await management.query<{ total: string }>(
    'SELECT coalesce(sum(c::numeric), 0)::text AS total FROM unnest($1::text[]) AS c',
    [costs.map(String)],
  );
  return rows[0]!.total;
}

const lines = {
  '/v1/chat/completions': {
    model: 'sim/gpt-4o-mini',
    body: (n: number) => ({ messages: [{ role: 'user', content: `Say ${n}` }] }),
    shape: (body: any) => expect(body.object).toBe('chat.completion'),
  },
  '/v1/responses': {
    model: 'sim/gpt-4o-mini',
    body: (n: number) => ({ input: `Say ${n}` }),
    shape: (body: any) => expect(body.object).toBe('response'),
  },
  '/v1/messages': {
    model: 'sim/claude-sonnet',
    body: (n: number) => ({ max_tokens: 64, messages: [{ role: 'user', content: `Say ${n}` }] }),
    shape: (body: any) => expect(body.type).toBe('message'),
  },
  '/v1/embeddings': {
    model: 'sim/text-embedding-3-small',
    body: (n: number) => ({ input: `Text ${n}` }),
    shape: (body: any) => expect(body.object).toBe('list'),
  },
} as const;

// Native: the sim models have a provider batch API (the catalog's batch price). Gateway-run: a
// custom_id the providers' batch APIs refuse (a space) makes the submit answer `native: false`.
// /v1/responses always runs by the gateway: inference has no provider batch codec for it.
const modes = Object.entries(lines).flatMap(([endpoint, line]) => [
  ...(endpoint === '/v1/responses' ? [] : [{ endpoint, line, mode: 'natively at the provider', id: (n: number) => `line-${n}` }]),
  { endpoint, line, mode: 'by the gateway', id: (n: number) => `line ${n}` },
]);

describe.each(modes)('a batch on $endpoint run $mode', ({ endpoint, line, mode, id }) => {
  it('is accepted (202 validating), runs, and reads back per spec §2.1 with results of the endpoint shape and usage summed; delete takes the upstream batch too', async () => {
    const requests = [0, 1, 2].map((n) => ({ custom_id: id(n), body: n === 1 ? { model: line.model, ...line.body(n) } : line.body(n) }));
    const created = await submit({ endpoint, model: line.model, completion_window: '24h', metadata: { run: 'e2e' }, requests });
    expect(created).toMatchObject({
      object: 'batch',
      endpoint,
      model: line.model,
      completion_window: '24h',
      status: 'validating',
      results: null,
      finalized_at: null,
      error: null,
    });
    expect(created.id).toMatch(/^batch_[0-9a-f]{32}$/);
    expect(created.request_counts).toEqual({ total: 3, completed: 0, failed: 0 });

    const read = await settled(created.id);
    expect(read.status).toBe(200);
    const batch = read.body as BatchView;
    expect(Object.keys(batch).sort()).toEqual(
      [
        'completion_window',
        'created_at',
        'endpoint',
        'error',
        'finalized_at',
        'id',
        'model',
        'object',
        'request_counts',
        'results',
        'status',
        'usage',
        // OpenAI's batch object beside spec §2.1.
        'input_file_id',
        'output_file_id',
        'error_file_id',
        'expires_at',
      ].sort(),
    );
    expect(batch).toMatchObject({ input_file_id: null, error_file_id: null, expires_at: batch.created_at + 86_400 });
    expect(batch.output_file_id).toBe(`file-out-${created.id.slice('batch_'.length)}`);
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });
    expect(batch.finalized_at).toBeGreaterThanOrEqual(batch.created_at);
    expect(batch.results!.map((item) => item.custom_id)).toEqual([0, 1, 2].map(id));
    for (const item of batch.results!) {
      expect(item.error).toBeNull();
      expect(item.response!.status_code).toBe(200);
      line.shape(item.response!.body);
    }
    const costs = batch.results!.map((item) => item.response!.body.usage.cost as number);
    expect(String(batch.usage.cost)).toBe(String(Number(await exactSum(costs))));
    expect(batch.usage).toMatchObject({ is_byok: false, iterations: null });
    if (endpoint === '/v1/chat/completions' && mode !== 'by the gateway') {
      // sim/gpt-4o-mini's batch price: half the live one (0.000000075 / 0.0000003 per token).
      const usage = batch.results![0]!.response!.body.usage as { prompt_tokens: number; completion_tokens: number; cost: number };
      expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.000000075 + usage.completion_tokens * 0.0000003, 15);
    }
    expect(batch.usage.prompt_tokens).toBeGreaterThan(0);
    expect(batch.usage.total_tokens).toBe(batch.usage.prompt_tokens + batch.usage.completion_tokens);

    const jsonl = await fetch(`${stack.baseUrl}/batches/${created.id}/results`, { headers: { authorization: `Bearer ${stack.apiKey}` } });
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get('content-type')).toMatch(/^application\/jsonl/);
    const parsed = (await jsonl.text())
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { custom_id: string });
    expect(parsed.map((item) => item.custom_id)).toEqual([0, 1, 2].map(id));

    const deleted = await call(`/batches/${created.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    const deletion = (deleted.body as { deletion: { service: string; upstream?: { provider: string; status: string } } }).deletion;
    expect(deletion.service).toBe('deleted');
    if (mode === 'by the gateway') expect(deletion.upstream).toBeUndefined();
    else expect(deletion.upstream).toMatchObject({ status: 'deleted', provider: expect.any(String) });
    expect((await call(`/batches/${created.id}`)).status).toBe(404);
  });
});

describe('the batch API around the runs', () => {
  const chat = { endpoint: '/v1/chat/completions', model: 'sim/gpt-4o-mini', completion_window: '24h' };
  const request = (n: number) => ({ custom_id: `c-${n}`, body: { messages: [{ role: 'user', content: `Hi ${n}` }] } });

  it('lists newest first with first_id, last_id, has_more and results null, and pages with after', async () => {
    const first = await submit({ ...chat, requests: [request(0)] });
    const second = await submit({ ...chat, requests: [request(0)] });
    const page = await call('/batches?limit=1');
    expect(page.status).toBe(200);
    const list = page.body as { object: string; data: BatchView[]; first_id: string; last_id: string; has_more: boolean };
    expect(list).toMatchObject({ object: 'list', first_id: second.id, last_id: second.id, has_more: true });
    expect(list.data[0]!.results).toBeNull();
    const next = (await call(`/batches?limit=1&after=${second.id}`)).body as { data: BatchView[] };
    expect(next.data[0]!.id).toBe(first.id);
    expect((await call('/batches?limit=0')).status).toBe(400);
    expect((await call('/batches?status=bogus')).status).toBe(400);
    expect((await call('/batches?status=validating&status=in_progress&status=completed&limit=100')).status).toBe(200);
  });

  it('cancels (cancelling, then cancelled with the finished results), and refuses to delete a running batch with 409', async () => {
    const big = await submit({ ...chat, model: 'sim/gpt-4o-mini-slow', requests: Array.from({ length: 40 }, (_, n) => request(n)) });
    const refused = await call(`/batches/${big.id}`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    envelopeOf(refused);
    const cancelled = await call(`/batches/${big.id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect((cancelled.body as BatchView).status).toMatch(/^cancell(ing|ed)$/);
    const done = (await settled(big.id)).body as BatchView;
    expect(done.status).toBe('cancelled');
    expect(done.request_counts.completed + done.request_counts.failed).toBe(done.results!.length);
    expect(done.results!.length).toBeLessThan(40);
    const deleted = await call(`/batches/${big.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: big.id, object: 'batch', deletion: { service: 'deleted' } });
    expect((await call(`/batches/${big.id}`)).status).toBe(404);
  });

  it('refuses what the streamed upload cannot take, naming the line and field', async () => {
    const late = await call('/batches', {
      rawBody: JSON.stringify({ requests: [request(0)], ...chat }),
      headers: { 'content-type': 'application/json' },
    });
    expect(late.status).toBe(400);
    expect(envelopeOf(late).message).toMatch(/must come before `requests`/);
    const invalid = await call('/batches', { body: { ...chat, requests: [request(0), { custom_id: 'bad', body: { messages: 'nope' } }] } });
    expect(invalid.status).toBe(400);
    expect(envelopeOf(invalid).message).toMatch(/^requests\[1\]\.body\.messages/);
    const duplicate = await call('/batches', { body: { ...chat, requests: [request(0), request(0)] } });
    expect(envelopeOf(duplicate).message).toMatch(/requests\[1\]\.custom_id: .*unique/);
    const otherModel = await call('/batches', {
      body: { ...chat, requests: [{ custom_id: 'x', body: { model: 'sim/claude-sonnet', messages: [{ role: 'user', content: 'x' }] } }] },
    });
    expect(envelopeOf(otherModel).message).toMatch(/requests\[0\]\.body\.model: must be absent or equal/);
    const endpoint = await call('/batches', { body: { ...chat, endpoint: '/v1/images', requests: [request(0)] } });
    expect(envelopeOf(endpoint).message).toMatch(/endpoint: must be one of/);
    const window = await call('/batches', { body: { ...chat, completion_window: '48h', requests: [request(0)] } });
    expect(window.status).toBe(400);
    const huge = await call('/batches', {
      body: { ...chat, requests: [{ custom_id: 'big', body: { messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] } }] },
    });
    expect(huge.status).toBe(413);
    expect(envelopeOf(huge).message).toMatch(/BATCH_MAX_LINE_BYTES/);
    const broken = await call('/batches', {
      rawBody: '{"endpoint":"/v1/chat/completions","model":"sim/gpt-4o-mini","requests":[{"custom_id":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    // Nothing of the refused uploads is listed.
    const listed = (await call('/batches?limit=100')).body as { data: BatchView[] };
    expect(listed.data.every((batch) => batch.request_counts.total > 0)).toBe(true);
    expect((await call('/batches/batch_00000000000000000000000000000000')).status).toBe(404);
    expect((await call('/batches/nope')).status).toBe(404);
    expect((await call('/batches', { key: null, body: { ...chat, requests: [request(0)] } })).status).toBe(401);
  });

  it('cost guard: 402 with metadata and results null while the workspace cannot pay; after a top-up two polls charge once', async () => {
    const tenant = await seedWorkspace('0.000000001');
    const created = await submit({ ...chat, requests: [0, 1, 2].map(request) }, tenant.apiKey);
    const refused = await settled(created.id, tenant.apiKey);
    expect(refused.status).toBe(402);
    const error = envelopeOf(refused);
    const batch = error.metadata!.batch as BatchView;
    expect(batch).toMatchObject({ id: created.id, status: 'completed', results: null });
    expect(batch.usage.cost).toBeGreaterThan(0);
    const usageBefore = await workspaceUsage(tenant.workspaceId);
    expect(usageBefore).toBe('0');

    const added = await call('/credits', { key: tenant.managementKey, body: { amount: 5 } });
    expect(added.status).toBe(200);
    const [one, two] = await Promise.all([
      call(`/batches/${created.id}`, { key: tenant.apiKey }),
      call(`/batches/${created.id}`, { key: tenant.apiKey }),
    ]);
    expect([one.status, two.status]).toEqual([200, 200]);
    expect((one.body as BatchView).results).toHaveLength(3);
    await call(`/batches/${created.id}`, { key: tenant.apiKey });
    const costs = (one.body as BatchView).results!.map((item) => item.response!.body.usage.cost as number);
    const expected = await exactSum(costs);
    await expect.poll(() => workspaceUsage(tenant.workspaceId), { timeout: 30_000 }).not.toBe('0');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { rows } = await management.query<{ equal: boolean }>('SELECT $1::numeric = $2::numeric AS equal', [
      await workspaceUsage(tenant.workspaceId),
      expected,
    ]);
    expect(rows[0]!.equal).toBe(true);
  });
});

describe('the batch API rate limit', () => {
  it('answers 429 with Retry-After past BATCH_API_RATE_LIMIT_RPM (600) per workspace, over all its keys', async () => {
    const tenant = await seedWorkspace('1');
    let refused: { status: number; body: unknown; headers: Headers } | undefined;
    // Two keys of one workspace, each far below its own per-key limit (600 a minute).
    for (let n = 0; n < 320 && !refused; n++) {
      for (const key of [tenant.apiKey, tenant.managementKey]) {
        const result = await call('/batches?limit=1', { key });
        if (result.status === 429) refused = result;
        else expect(result.status).toBe(200);
      }
    }
    expect(refused).toBeDefined();
    expect(envelopeOf(refused!).metadata).toMatchObject({
      error_type: 'rate_limit_exceeded',
      limit_type: 'batch_requests_per_minute',
      limit: 600,
    });
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another workspace is not affected.
    expect((await call('/batches?limit=1')).status).toBe(200);
  });
});

async function workspaceUsage(workspaceId: string): Promise<string> {
  const { rows } = await management.query<{ usage: string }>('SELECT usage_total::text AS usage FROM workspaces WHERE id = $1', [
    workspaceId,
  ]);
  return String(Number(rows[0]!.usage));
}

/** A workspace of its own with `credits`, a management key and a standard key (straight into the database). */
async function seedWorkspace(credits: string): Promise<{ workspaceId: string; managementKey: string; apiKey: string }> {
  const workspaceId = randomUUID();
  const userId = randomUUID();
  const managementKey = `sk-gw-v1-${randomUUID().replace(/-/g, '')}`;
  const apiKey = `sk-gw-v1-${randomUUID().replace(/-/g, '')}`;
  await management.query(`INSERT INTO workspaces (id, name, updated_at, credits_total) VALUES ($1, 'Batch tenant', now(), $2)`, [
    workspaceId,
    credits,
  ]);
  await management.query(
    `INSERT INTO users (id, email, name, default_workspace_id, updated_at) VALUES ($1, $2, 'Batch tenant', $3, now())`,
    [userId, `${userId}@example.com`, workspaceId],
  );
  await management.query(`INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner')`, [workspaceId, userId]);
  for (const [secret, kind] of [
    [managementKey, 'management'],
    [apiKey, 'standard'],
  ]) {
    await management.query(
      `INSERT INTO api_keys (hash, name, label, kind, workspace_id, creator_user_id, updated_at)
       VALUES ($1, $2, 'sk-gw-v1-xxx...yyyy', $3::"ApiKeyKind", $4, $5, now())`,
      [sha256(secret!), `batch ${kind}`, kind, workspaceId, userId],
    );
  }
  return { workspaceId, managementKey, apiKey };
}
