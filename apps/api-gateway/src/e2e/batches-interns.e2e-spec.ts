import { beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/*
 * Issue 35 item 6, spec §4.4: an intern's key is confined to that intern. Its batches are the
 * ones it created; every other batch of the workspace answers 404 to it on get, results,
 * cancel and delete and is absent from its list. Workspace keys still see the whole workspace.
 */

interface Batch {
  id: string;
  status: string;
}

const body = (tag: string) => ({
  endpoint: '/v1/chat/completions',
  model: 'sim/gpt-4o-mini',
  completion_window: '24h',
  metadata: { tag },
  requests: [{ custom_id: 'a', body: { messages: [{ role: 'user', content: `Say ${tag}` }], max_tokens: 8 } }],
});

async function internKey(name: string): Promise<string> {
  const intern = await call('/interns', { body: { name } });
  expect(intern.status, JSON.stringify(intern.body)).toBe(201);
  const id = (intern.body as { id: string }).id;
  const key = await call('/keys', { key: stack.managementKey, body: { name: `${name} key`, intern_id: id } });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  return (key.body as { key: string }).key;
}

async function submit(key: string, tag: string): Promise<Batch> {
  const created = await call('/batches', { key, body: body(tag) });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return created.body as Batch;
}

async function listed(key: string): Promise<string[]> {
  const list = await call('/batches?limit=100', { key });
  expect(list.status).toBe(200);
  return (list.body as { data: Batch[] }).data.map((batch) => batch.id);
}

describe('an intern key and batches (spec §4.4)', () => {
  let mine: string;
  let other: string;
  let own: Batch;
  let others: Batch;
  let workspace: Batch;

  beforeAll(async () => {
    mine = await internKey('batch-intern-a');
    other = await internKey('batch-intern-b');
    own = await submit(mine, 'own');
    others = await submit(other, 'other');
    workspace = await submit(stack.apiKey, 'workspace');
  });

  it('lists and reads only its intern’s batches; the others are 404 to it', async () => {
    const seen = await listed(mine);
    expect(seen).toContain(own.id);
    expect(seen).not.toContain(others.id);
    expect(seen).not.toContain(workspace.id);
    expect((await call(`/batches/${own.id}`, { key: mine })).status).toBe(200);
    for (const id of [others.id, workspace.id]) {
      const read = await call(`/batches/${id}`, { key: mine });
      expect(read.status, id).toBe(404);
      envelopeOf(read);
      expect((await call(`/batches/${id}/results`, { key: mine })).status, id).toBe(404);
    }
  });

  it('cannot cancel or delete another intern’s or the workspace’s batch, and can its own', async () => {
    for (const id of [others.id, workspace.id]) {
      expect((await call(`/batches/${id}/cancel`, { key: mine, method: 'POST' })).status, id).toBe(404);
      expect((await call(`/batches/${id}`, { key: mine, method: 'DELETE' })).status, id).toBe(404);
    }
    const cancelled = await call(`/batches/${own.id}/cancel`, { key: mine, method: 'POST' });
    expect([200, 409], JSON.stringify(cancelled.body)).toContain(cancelled.status);
  });

  it('leaves workspace keys seeing every batch of the workspace', async () => {
    const seen = await listed(stack.apiKey);
    expect(seen).toEqual(expect.arrayContaining([own.id, others.id, workspace.id]));
    expect((await call(`/batches/${others.id}`)).status).toBe(200);
  });
});
