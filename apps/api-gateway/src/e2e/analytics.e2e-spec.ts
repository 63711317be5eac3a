import Anthropic from '@anthropic-ai/sdk';
import { OpenRouter } from '@openrouter/sdk';
import { ForbiddenResponseError, NotFoundResponseError } from '@openrouter/sdk/models/errors';
import { execFileSync } from 'node:child_process';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

type Priced = { cost: number };
type Row = Record<string, string | number | null>;
const messages = [{ role: 'user' as const, content: 'Tell me about rollups' }];

/** Exact decimal sums: each cost as the decimal its shortest JSON spelling names, in units of 1e-18. */
const SCALE = 18;
function units(cost: number): bigint {
  const [whole, fraction = ''] = cost.toFixed(SCALE).split('.');
  return BigInt(whole!) * 10n ** BigInt(SCALE) + BigInt(fraction.padEnd(SCALE, '0'));
}
const sum = (costs: number[]) => costs.reduce((total, cost) => total + units(cost), 0n);
const asNumber = (total: bigint) =>
  Number(`${total / 10n ** BigInt(SCALE)}.${(total % 10n ** BigInt(SCALE)).toString().padStart(SCALE, '0')}`);

function otherWorkspaceKey(): string {
  const created = execFileSync(process.execPath, ['apps/management/dist/cli/create-key.js', '--json', '--management', '--name', 'other'], {
    env: { ...process.env, MANAGEMENT_DATABASE_URL: stack.managementDatabaseUrl },
    encoding: 'utf8',
  });
  return (JSON.parse(created) as { secret: string }).secret;
}

/**
 * Activity and analytics through `@openrouter/sdk` after chats of every front door made with a
 * key of their own: the sums the gateway answers equal the sums of the answers' `usage.cost`
 * exactly (each answer's cost is the decimal the gateway charged, summed here in integers).
 */
describe('activity and analytics (@openrouter/sdk analytics.*)', () => {
  const sdk = new OpenRouter({ apiKey: stack.managementKey, serverURL: stack.baseUrl });
  let key: { key: string; hash: string };
  const answered: Array<{ model: string; cost: number; prompt: number; completion: number }> = [];

  beforeAll(async () => {
    const created = await call('/keys', { key: stack.managementKey, body: { name: 'analytics e2e' } });
    expect(created.status).toBe(201);
    const body = created.body as { key: string; data: { hash: string } };
    key = { key: body.key, hash: body.data.hash };
    const openai = new OpenAI({ apiKey: key.key, baseURL: stack.baseUrl, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: key.key, baseURL: stack.baseUrl.replace(/\/v1$/, ''), maxRetries: 0 });

    const plain = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages });
    const plainUsage = plain.usage as OpenAI.CompletionUsage & Priced;
    answered.push({
      model: 'sim/gpt-4o-mini',
      cost: plainUsage.cost,
      prompt: plainUsage.prompt_tokens,
      completion: plainUsage.completion_tokens,
    });

    const stream = await openai.chat.completions.create({
      model: 'sim/claude-sonnet',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed: (OpenAI.CompletionUsage & Priced) | undefined;
    for await (const chunk of stream) if (chunk.usage) streamed = chunk.usage as OpenAI.CompletionUsage & Priced;
    answered.push({
      model: 'sim/claude-sonnet',
      cost: streamed!.cost,
      prompt: streamed!.prompt_tokens,
      completion: streamed!.completion_tokens,
    });

    const response = await openai.responses.create({ model: 'sim/gpt-5-mini', input: 'Hello!' });
    const responseUsage = response.usage as OpenAI.Responses.ResponseUsage & Priced;
    answered.push({
      model: 'sim/gpt-5-mini',
      cost: responseUsage.cost,
      prompt: responseUsage.input_tokens,
      completion: responseUsage.output_tokens,
    });

    const message = await anthropic.messages.create({ model: 'sim/claude-sonnet', max_tokens: 256, messages });
    const messageUsage = message.usage as Anthropic.Usage & Priced;
    answered.push({
      model: 'sim/claude-sonnet',
      cost: messageUsage.cost,
      prompt: messageUsage.input_tokens,
      completion: messageUsage.output_tokens,
    });

    // Every generation row (and so its rollup) written: the list of the key has all four.
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const page = await call(`/generations?key_hash=${key.hash}`);
      if ((page.body as { data: unknown[] }).data.length >= answered.length) break;
    }
  });

  const query = async (body: object, apiKey = stack.managementKey) => {
    const answer = await call('/analytics/query', { key: apiKey, body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body as { data: { data: Row[]; metadata: { row_count: number; truncated: boolean }; warnings?: string[] } }).data;
  };
  const ofKey = () => [{ field: 'api_key_id', operator: 'eq', value: key.hash }];

  it('analytics.queryAnalytics: totals of the key equal the answers exactly', async () => {
    const result = await query({
      metrics: ['request_count', 'usage', 'prompt_tokens', 'completion_tokens', 'error_count'],
      filters: ofKey(),
    });
    expect(result.data).toEqual([
      {
        request_count: answered.length,
        usage: asNumber(sum(answered.map((answer) => answer.cost))),
        prompt_tokens: answered.reduce((total, answer) => total + answer.prompt, 0),
        completion_tokens: answered.reduce((total, answer) => total + answer.completion, 0),
        error_count: 0,
      },
    ]);
    // The SDK sends the same query and parses the answer (its typed rows carry no fields: `{}`).
    const viaSdk = await sdk.analytics.queryAnalytics({
      requestBody: {
        metrics: ['usage'],
        filters: ofKey().map((filter) => ({ ...filter })),
        timeRange: { start: new Date(Date.now() - 86_400_000), end: new Date(Date.now() + 3_600_000) },
      },
    });
    expect(viaSdk.data.metadata.rowCount).toBe(1);
    expect(viaSdk.data.warnings?.[0]).toMatch(/whole UTC hours/);
  });

  it('groups by model and by day, each group the sum of its answers', async () => {
    const byModel = await query({ metrics: ['usage', 'request_count'], dimensions: ['model'], filters: ofKey() });
    const models = [...new Set(answered.map((answer) => answer.model))];
    expect(byModel.data).toHaveLength(models.length);
    for (const model of models) {
      const mine = answered.filter((answer) => answer.model === model);
      expect(byModel.data).toContainEqual({ model, usage: asNumber(sum(mine.map((answer) => answer.cost))), request_count: mine.length });
    }
    const byDay = await query({ metrics: ['usage'], granularity: 'day', filters: ofKey() });
    expect(byDay.data.length).toBeGreaterThanOrEqual(1);
    expect(asNumber(sum(byDay.data.map((row) => row.usage as number)))).toBe(asNumber(sum(answered.map((answer) => answer.cost))));
    expect(byDay.data.every((row) => /T00:00:00\.000Z$/.test(row.date as string))).toBe(true);
  });

  it('analytics.getUserActivity: per date, model and endpoint, summing to the answers exactly', async () => {
    const dates = new Set<string>();
    const list = (await call(`/generations?key_hash=${key.hash}`)).body as { data: Array<{ created_at: string }> };
    for (const generation of list.data) dates.add(generation.created_at.slice(0, 10));
    const items = [];
    for (const date of dates) items.push(...(await sdk.analytics.getUserActivity({ date, apiKeyHash: key.hash })).data);
    expect(items.reduce((total, item) => total + item.requests, 0)).toBe(answered.length);
    expect(asNumber(sum(items.map((item) => item.usage)))).toBe(asNumber(sum(answered.map((answer) => answer.cost))));
    expect(items.every((item) => item.endpointId === `${item.providerName}/${item.endpointId.split('/').slice(1).join('/')}`)).toBe(true);
    expect(items.every((item) => item.byokUsageInference === 0 && item.workspaceId === undefined)).toBe(true);
    const grouped = await sdk.analytics.getUserActivity({ date: [...dates][0]!, apiKeyHash: key.hash, groupBy: 'workspace' });
    expect(grouped.data.every((item) => item.workspaceId === stack.workspaceId)).toBe(true);
  });

  it('analytics.getAnalyticsMeta lists what a query may name', async () => {
    const meta = await sdk.analytics.getAnalyticsMeta();
    expect(meta.data.metrics.map((metric) => metric.name)).toEqual(
      expect.arrayContaining(['request_count', 'usage', 'byok_usage_inference']),
    );
    expect(meta.data.dimensions.map((dimension) => dimension.name)).toEqual(expect.arrayContaining(['model', 'provider', 'api_key_id']));
    expect(meta.data.granularities.map((granularity) => granularity.name)).toEqual(['hour', 'day', 'week', 'month']);
  });

  it('shows another workspace nothing (404 when it names this one), a standard key 403, a bad query 400', async () => {
    const stranger = otherWorkspaceKey();
    const strangerSdk = new OpenRouter({ apiKey: stranger, serverURL: stack.baseUrl });
    expect((await query({ metrics: ['request_count'], filters: ofKey() }, stranger)).data).toEqual([{ request_count: 0 }]);
    const named = await call('/analytics/query', {
      key: stranger,
      body: { metrics: ['usage'], filters: [{ field: 'workspace', operator: 'eq', value: stack.workspaceId }] },
    });
    expect(named.status).toBe(404);
    envelopeOf(named);
    await expect(strangerSdk.analytics.getUserActivity({ workspaceId: stack.workspaceId })).rejects.toBeInstanceOf(NotFoundResponseError);
    const today = new Date().toISOString().slice(0, 10);
    expect((await strangerSdk.analytics.getUserActivity({ date: today, apiKeyHash: key.hash })).data).toEqual([]);

    const standard = new OpenRouter({ apiKey: key.key, serverURL: stack.baseUrl });
    await expect(standard.analytics.getUserActivity()).rejects.toBeInstanceOf(ForbiddenResponseError);
    const refused = await call('/analytics/query', { key: key.key, body: { metrics: ['usage'] } });
    expect(refused.status).toBe(403);
    for (const body of [
      { metrics: ['spend'] },
      { metrics: ['usage'], granularity: 'minute' },
      { metrics: ['usage'], dimensions: ['country'] },
      { metrics: ['usage'], time_range: { start: '2026-01-01T00:00Z', end: '2026-01-02T00:00:00Z' } },
      { metrics: ['usage'], filters: [{ field: 'model', operator: 'in', value: 'x' }] },
      { metrics: ['usage'], classifier_dimensions: { classifier_id: 'c' } },
    ]) {
      const bad = await call('/analytics/query', { key: stack.managementKey, body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      envelopeOf(bad);
    }
    expect((await call('/activity?date=2001-01-01', { key: stack.managementKey })).status).toBe(400);
  });
});

/** `GET /v1/generations` filters and `GET /v1/generations/export` as CSV and JSONL. */
describe('generations list filters and export', () => {
  let key: { key: string; hash: string };
  const ids: string[] = [];

  beforeAll(async () => {
    const created = await call('/keys', { key: stack.managementKey, body: { name: 'export e2e' } });
    const body = created.body as { key: string; data: { hash: string } };
    key = { key: body.key, hash: body.data.hash };
    const openai = new OpenAI({ apiKey: key.key, baseURL: stack.baseUrl, maxRetries: 0 });
    for (const content of ['one, "quoted"', 'two']) {
      ids.push((await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content }] })).id);
    }
    ids.push((await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages, max_tokens: 1 })).id);
    await openai.embeddings.create({ model: 'sim/text-embedding-3-small', input: 'embed me' });
    expect((await call(`/generation?id=${ids.at(-1)}`)).status).toBe(200);
  });

  const listed = async (query: string) => {
    const answer = await call(`/generations?key_hash=${key.hash}&${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body as { data: Array<{ id: string; finish_reason: string | null; api_type: string; total_cost: number }> }).data;
  };

  it('filters by API type, finish reason, status and cost', async () => {
    for (let attempt = 0; (await listed('')).length < 4 && attempt < 50; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await listed('api_type=embeddings')).map((generation) => generation.api_type)).toEqual(['embeddings']);
    expect((await listed('api_type=completions')).map((generation) => generation.id).sort()).toEqual([...ids].sort());
    const stopped = await listed('finish_reason=stop');
    expect(stopped.length).toBeGreaterThan(0);
    expect(stopped.every((generation) => generation.finish_reason === 'stop')).toBe(true);
    expect(await listed('status=failed')).toEqual([]);
    const all = await listed('');
    const cheapest = Math.min(...all.map((generation) => generation.total_cost));
    const dearer = await listed(`cost_gt=${cheapest.toFixed(12)}`);
    expect(dearer.every((generation) => generation.total_cost > cheapest)).toBe(true);
    expect(dearer.length).toBeLessThan(all.length);
    for (const query of ['status=done', 'api_type=images', 'cost_gt=-1', 'user_id=me', 'finish_reason=STOP']) {
      expect((await call(`/generations?${query}`)).status, query).toBe(400);
    }
  });

  it('exports the same generations as JSONL and CSV, newest first', async () => {
    const list = await listed('');
    const jsonl = await fetch(`${stack.baseUrl}/generations/export?format=jsonl&key_hash=${key.hash}`, {
      headers: { authorization: `Bearer ${stack.apiKey}` },
    });
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get('content-type')).toMatch(/^application\/jsonl/);
    const lines = (await jsonl.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; total_cost: number });
    expect(lines.map((line) => line.id)).toEqual(list.map((generation) => generation.id));
    expect(lines.map((line) => line.total_cost)).toEqual(list.map((generation) => generation.total_cost));

    const csv = await fetch(`${stack.baseUrl}/generations/export?format=csv&key_hash=${key.hash}&api_type=completions`, {
      headers: { authorization: `Bearer ${stack.apiKey}` },
    });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = (await csv.text()).trimEnd().split('\r\n');
    expect(rows[0]!.split(',').slice(0, 3)).toEqual(['id', 'created_at', 'model']);
    expect(rows.slice(1).map((row) => row.split(',')[0])).toEqual(
      list.filter((generation) => generation.api_type === 'completions').map((generation) => generation.id),
    );

    const stranger = await fetch(`${stack.baseUrl}/generations/export?format=jsonl&key_hash=${key.hash}`, {
      headers: { authorization: `Bearer ${otherWorkspaceKey()}` },
    });
    expect(stranger.status).toBe(200);
    expect(await stranger.text()).toBe('');
    expect((await call('/generations/export?format=xml')).status).toBe(400);
    expect((await call('/generations/export')).status).toBe(400);
  });
});
