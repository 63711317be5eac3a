import { EVENTS, type RequestFailedEvent } from '@gw/contracts';
import { JetStreamPublisher, ResilientNatsConnection } from '@gw/messaging';
import { busAuth } from '@gw/testing';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

type Row = Record<string, string | number | null>;
const messages = [{ role: 'user', content: 'Hello' }];

/**
 * Issue 32: every failed request of an authenticated key is counted once per canonical error type
 * (recorded by the gateway's error writer on USAGE, stored by inference), and analytics'
 * error_count is that count plus the broken streams, for the key's workspace only.
 */
describe('errors by type (analytics error_type)', () => {
  let key: { key: string; hash: string };
  const answered: Array<{ status: number; errorType?: string }> = [];

  const query = async (body: object, apiKey = stack.managementKey) => {
    const answer = await call('/analytics/query', { key: apiKey, body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body as { data: { data: Row[] } }).data.data;
  };
  const ofKey = () => [{ field: 'api_key_id', operator: 'eq', value: key.hash }];
  const byType = async () =>
    Object.fromEntries(
      (await query({ metrics: ['error_count'], dimensions: ['error_type'], filters: ofKey() })).map((row) => [
        row.error_type,
        row.error_count,
      ]),
    );
  const expected = () => {
    const counts: Record<string, number> = {};
    for (const { errorType } of answered) if (errorType) counts[errorType] = (counts[errorType] ?? 0) + 1;
    return counts;
  };

  beforeAll(async () => {
    const created = await call('/keys', {
      key: stack.managementKey,
      body: { name: 'errors by type e2e', rate_limit: { requests_per_minute: 5 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const body = created.body as { key: string; data: { hash: string } };
    key = { key: body.key, hash: body.data.hash };
    const chat = (payload: object) => call('/chat/completions', { key: key.key, body: payload });
    // Five inside the key's limit (one success, four failures of three types), then two over it.
    for (const payload of [
      { model: 'sim/gpt-4o-mini', messages },
      { model: 'nope/model', messages },
      { model: 'sim/gpt-4o-mini' },
      { model: 'sim/unavailable', messages },
      { model: 'nope/other', messages },
      { model: 'sim/gpt-4o-mini', messages },
      { model: 'sim/gpt-4o-mini', messages },
    ]) {
      const answer = await chat(payload);
      answered.push(
        answer.status === 200 ? { status: 200 } : { status: answer.status, errorType: envelopeOf(answer).metadata?.error_type as string },
      );
    }
    // Not counted: no tenant.
    expect((await call('/chat/completions', { key: 'sk-invalid', body: { model: 'sim/gpt-4o-mini', messages } })).status).toBe(401);
  });

  it('counts each failed request once under its canonical error type, and the success under none', async () => {
    expect(answered.map((answer) => answer.status)).toEqual([200, 404, 400, 503, 404, 429, 429]);
    expect(expected()).toEqual({ not_found: 2, invalid_request: 1, provider_unavailable: 1, rate_limit_exceeded: 2 });
    await expect.poll(byType, { timeout: 30_000, interval: 200 }).toEqual(expected());
    const [totals] = await query({ metrics: ['error_count', 'request_count', 'error_rate'], filters: ofKey() });
    expect(totals).toEqual({ error_count: 6, request_count: 1, error_rate: Number((6 / 7).toFixed(6)) });
    const byModel = await query({ metrics: ['error_count'], dimensions: ['model'], filters: ofKey() });
    expect(byModel).toContainEqual({ model: 'nope/model', error_count: 1 });
    expect(byModel).toContainEqual({ model: 'sim/gpt-4o-mini', error_count: 3 });
    const hourly = await query({
      metrics: ['error_count'],
      granularity: 'hour',
      filters: [...ofKey(), { field: 'error_type', operator: 'eq', value: 'rate_limit_exceeded' }],
    });
    expect(hourly.reduce((total, row) => total + Number(row.error_count), 0)).toBe(2);
  });

  it('shows another workspace none of them', async () => {
    const created = execFileSync(
      process.execPath,
      ['apps/management/dist/cli/create-key.js', '--json', '--management', '--name', 'errors other'],
      {
        env: { ...process.env, MANAGEMENT_DATABASE_URL: stack.managementDatabaseUrl },
        encoding: 'utf8',
      },
    );
    const stranger = (JSON.parse(created) as { secret: string }).secret;
    expect(await query({ metrics: ['error_count'], dimensions: ['error_type'] }, stranger)).toEqual([]);
    expect(await query({ metrics: ['error_count'] }, stranger)).toEqual([{ error_count: 0 }]);
  });

  it('counts a redelivered failure once', async () => {
    await expect.poll(byType, { timeout: 30_000, interval: 200 }).toEqual(expected());
    const nats = await ResilientNatsConnection.open({
      servers: stack.natsUrl,
      name: 'errors-by-type-e2e',
      auth: busAuth(stack.natsSeeds, 'api-gateway'),
    });
    const publisher = new JetStreamPublisher(nats.connection, 10_000);
    try {
      const failure: RequestFailedEvent = {
        failureId: randomUUID(),
        requestId: 'redelivered',
        workspaceId: stack.workspaceId,
        keyHash: key.hash,
        errorType: 'server',
        status: 500,
        createdAt: new Date().toISOString(),
      };
      // Two messages (JetStream would drop a repeated message id within its window): the consumer must dedupe.
      const bytes = new TextEncoder().encode(JSON.stringify(failure));
      await publisher.publishBytes(EVENTS.requestFailed, bytes, `${failure.failureId}-a`);
      await publisher.publishBytes(EVENTS.requestFailed, bytes, `${failure.failureId}-b`);
      // A later failure of another type: once it is counted, both copies were consumed before it.
      const later = { ...failure, failureId: randomUUID(), errorType: 'timeout', status: 504 };
      await publisher.publishBytes(EVENTS.requestFailed, new TextEncoder().encode(JSON.stringify(later)), later.failureId);
      await expect.poll(async () => (await byType()).timeout, { timeout: 30_000, interval: 200 }).toBe(1);
      expect(await byType()).toEqual({ ...expected(), server: 1, timeout: 1 });
    } finally {
      publisher.close();
      await nats.close();
    }
  });

  it('lists error_type in the meta, and refuses a metric that has no value per error type', async () => {
    const meta = await call('/analytics/meta', { key: stack.managementKey });
    expect((meta.body as { data: { dimensions: Array<{ name: string }> } }).data.dimensions.map((dimension) => dimension.name)).toContain(
      'error_type',
    );
    const refused = await call('/analytics/query', {
      key: stack.managementKey,
      body: { metrics: ['error_count', 'usage'], dimensions: ['error_type'] },
    });
    expect(refused.status).toBe(400);
    expect(envelopeOf(refused).message).toMatch(/error_type .* combines only with error_count; usage has no value per error type/);
  });
});
