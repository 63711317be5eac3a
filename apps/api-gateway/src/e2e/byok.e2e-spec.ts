import { connect, type NatsConnection } from '@nats-io/transport-node';
import { OpenRouter } from '@openrouter/sdk';
import { EVENTS } from '@gw/contracts';
import { natsAuthOptions } from '@gw/messaging';
import { busAuth } from '@gw/testing';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/** Recognisable, unique to this run: any occurrence anywhere is a leak. */
const SECRET = `sk-byok-E2eLeakCanary-${randomBytes(16).toString('hex')}-AbCd`;
const ROTATED = `sk-byok-E2eRotatedCanary-${randomBytes(16).toString('hex')}-WXYZ`;
const CANARIES = [SECRET, ROTATED, SECRET.slice(8, 40), ROTATED.slice(8, 40)];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Field types of the BYOK credential object, spec §2.4. */
const BYOK_FIELDS: Record<string, string[]> = {
  id: ['string'],
  name: ['string'],
  provider: ['string'],
  label: ['string'],
  disabled: ['boolean'],
  is_byok_only: ['boolean'],
  is_fallback: ['boolean'],
  is_required: ['boolean'],
  sort_order: ['number'],
  created_at: ['string'],
  workspace_id: ['string'],
  allowed_api_key_hashes: ['object', 'null'],
  allowed_models: ['object', 'null'],
  allowed_user_ids: ['object', 'null'],
  declared_region: ['string', 'null'],
  declared_zdr: ['boolean', 'null'],
};
const typeOf = (value: unknown) => (value === null ? 'null' : typeof value);

describe('BYOK credentials through the gateway', () => {
  const sdk = new OpenRouter({ apiKey: stack.managementKey, serverURL: stack.baseUrl });
  const responses: string[] = [];
  const events: string[] = [];
  const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });
  let nats: NatsConnection;

  /** Every call goes through here, so every response body is kept for the leak check. */
  const byok = async (path: string, init: Parameters<typeof call>[1] = {}) => {
    const result = await call(`/byok${path}`, { key: stack.managementKey, ...init });
    responses.push(typeof result.body === 'string' ? result.body : JSON.stringify(result.body));
    return result;
  };

  beforeAll(async () => {
    await database.connect();
    // As inference, the one service that hears about BYOK changes.
    nats = await connect({ servers: stack.natsUrl, ...natsAuthOptions(busAuth(stack.natsSeeds, 'inference')) });
    nats.subscribe(EVENTS.byokChanged, { callback: (_error, message) => void events.push(message.string()) });
  });
  afterAll(async () => {
    await nats?.close();
    await database.end();
  });

  let id: string;

  it('creates a credential (201) with every field of spec §2.4 and a masked label', async () => {
    const result = await byok('', {
      body: {
        provider: 'openai',
        key: SECRET,
        name: 'Prod OpenAI',
        sort_order: 3,
        allowed_models: ['sim/gpt-4o-mini'],
        allowed_api_key_hashes: [sha256(stack.apiKey)],
      },
    });
    expect(result.status).toBe(201);
    const data = (result.body as { data: Record<string, unknown> }).data;
    expect(Object.keys(data).sort()).toEqual(Object.keys(BYOK_FIELDS).sort());
    for (const [field, types] of Object.entries(BYOK_FIELDS)) expect(types, field).toContain(typeOf(data[field]));
    expect(data).toMatchObject({
      name: 'Prod OpenAI',
      provider: 'openai',
      label: 'sk-...AbCd',
      sort_order: 3,
      workspace_id: stack.workspaceId,
      allowed_models: ['sim/gpt-4o-mini'],
      allowed_api_key_hashes: [sha256(stack.apiKey)],
      allowed_user_ids: null,
    });
    id = data.id as string;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('stores the secret encrypted: not in the database row, in any encoding', async () => {
    const { rows } = await database.query('SELECT row_to_json(b)::text AS row FROM byok_credentials b WHERE id = $1', [id]);
    expect(rows).toHaveLength(1);
    for (const encoded of [SECRET, Buffer.from(SECRET).toString('hex'), Buffer.from(SECRET).toString('base64')]) {
      expect(rows[0].row).not.toContain(encoded);
    }
  });

  it('gets it by id, and lists it newest first, filtered by provider', async () => {
    const one = await byok(`/${id}`);
    expect(one.status).toBe(200);
    expect((one.body as { data: { id: string } }).data.id).toBe(id);

    await byok('', { body: { provider: 'anthropic', key: 'sk-ant-other-0123456789abcdefgh' } });
    const all = await byok('');
    const page = all.body as { data: Array<{ id: string; provider: string; created_at: string }>; total_count: number };
    expect(page.data[0]!.provider).toBe('anthropic');
    expect(page.data.map((credential) => credential.id)).toContain(id);
    expect(page.total_count).toBe(page.data.length);
    const filtered = (await byok('?provider=openai')).body as { data: Array<{ provider: string }> };
    expect(filtered.data.length).toBeGreaterThan(0);
    expect(filtered.data.every((credential) => credential.provider === 'openai')).toBe(true);
    const paged = (await byok('?offset=1&limit=1')).body as { data: Array<{ id: string }> };
    expect(paged.data.map((credential) => credential.id)).toEqual([page.data[1]!.id]);
  });

  it('updates with PATCH; a new key re-encrypts and changes the label', async () => {
    const result = await byok(`/${id}`, {
      method: 'PATCH',
      body: { key: ROTATED, disabled: true, allowed_models: null, is_fallback: true },
    });
    expect(result.status).toBe(200);
    expect((result.body as { data: unknown }).data).toMatchObject({
      id,
      label: 'sk-...WXYZ',
      disabled: true,
      allowed_models: null,
      is_fallback: true,
    });
    const { rows } = await database.query('SELECT row_to_json(b)::text AS row FROM byok_credentials b WHERE id = $1', [id]);
    expect(rows[0].row).not.toContain(ROTATED);
  });

  it('works with the OpenRouter SDK: create, list, get, update, delete', async () => {
    const created = await sdk.byok.create({
      createBYOKKeyRequest: { provider: 'groq', key: SECRET, name: 'via sdk', isRequired: true, declaredZdr: true },
    });
    responses.push(JSON.stringify(created));
    expect(created.data).toMatchObject({
      provider: 'groq',
      label: 'sk-...AbCd',
      isRequired: true,
      declaredZdr: true,
      workspaceId: stack.workspaceId,
    });
    const listed = await sdk.byok.list({ provider: 'groq' });
    responses.push(JSON.stringify(listed.result));
    expect(listed.result.data.map((credential) => credential.id)).toContain(created.data.id);
    expect(listed.result.totalCount).toBe(listed.result.data.length);
    const got = await sdk.byok.get({ id: created.data.id });
    expect(got.data.name).toBe('via sdk');
    const updated = await sdk.byok.update({ id: created.data.id, updateBYOKKeyRequest: { name: 'renamed', key: ROTATED } });
    responses.push(JSON.stringify(updated));
    expect(updated.data).toMatchObject({ name: 'renamed', label: 'sk-...WXYZ' });
    expect(await sdk.byok.delete({ id: created.data.id })).toEqual({ deleted: true });
    await expect(sdk.byok.get({ id: created.data.id })).rejects.toMatchObject({ statusCode: 404 });
  });

  it.each([
    ['a malformed id', '/not-a-uuid'],
    ['an unknown id', `/${crypto.randomUUID()}`],
  ])('answers 404 for %s on get, update and delete', async (_what, path) => {
    for (const init of [{}, { method: 'PATCH', body: { name: 'x' } }, { method: 'DELETE' }]) {
      const result = await byok(path, init);
      expect(result.status).toBe(404);
      expect(envelopeOf(result).metadata?.error_type).toBe('not_found');
    }
  });

  it.each([
    ['a missing key', { provider: 'openai' }, /key/],
    ['a blank key', { provider: 'openai', key: '   ' }, /key/],
    ['a provider that is not a slug', { provider: 'Open AI', key: SECRET }, /provider/],
    ['the secret as the provider', { provider: SECRET, key: SECRET }, /provider/],
    ['an unknown field carrying the secret', { provider: 'openai', key: SECRET, secret_copy: SECRET }, /secret_copy/],
    ['a bad key hash', { provider: 'openai', key: SECRET, allowed_api_key_hashes: ['abc'] }, /allowed_api_key_hashes/],
    ['an empty allow-list', { provider: 'openai', key: SECRET, allowed_models: [] }, /allowed_models/],
    [
      'too many models',
      { provider: 'openai', key: SECRET, allowed_models: Array.from({ length: 101 }, (_, i) => `m/${i}`) },
      /allowed_models/,
    ],
    ['a user id that is not a UUID', { provider: 'openai', key: SECRET, allowed_user_ids: ['bob'] }, /allowed_user_ids/],
    ['a key of another workspace', { provider: 'openai', key: SECRET, allowed_api_key_hashes: ['0'.repeat(64)] }, /allowed_api_key_hashes/],
    ['fallback and byok-only together', { provider: 'openai', key: SECRET, is_fallback: true, is_byok_only: true }, /is_byok_only/],
    ['a negative sort order', { provider: 'openai', key: SECRET, sort_order: -1 }, /sort_order/],
    ['a null flag', { provider: 'openai', key: SECRET, disabled: null }, /disabled/],
  ])('answers 400 for %s, without echoing the body', async (_what, body, message) => {
    const result = await byok('', { body });
    expect(result.status).toBe(400);
    expect(envelopeOf(result).message).toMatch(message);
  });

  it('answers 400 for a body that is not JSON, without echoing it', async () => {
    const result = await byok('', { rawBody: `{"provider":"openai","key":"${SECRET}"`, headers: { 'content-type': 'application/json' } });
    expect(result.status).toBe(400);
    const patch = await byok(`/${id}`, { method: 'PATCH', body: { key: 42 } });
    expect(patch.status).toBe(400);
  });

  it('answers 400 for bad list parameters', async () => {
    for (const query of ['offset=-1', 'limit=0', 'limit=101', 'provider=NOPE', 'unknown=1', `workspace_id=${crypto.randomUUID()}`]) {
      expect((await byok(`?${query}`)).status, query).toBe(400);
    }
  });

  it('refuses a standard key with 401 management_key_required on every endpoint', async () => {
    for (const [path, init] of [
      ['', { body: { provider: 'openai', key: SECRET } }],
      ['', {}],
      [`/${id}`, {}],
      [`/${id}`, { method: 'PATCH', body: { name: 'x' } }],
      [`/${id}`, { method: 'DELETE' }],
    ] as const) {
      const result = await byok(path, { ...init, key: stack.apiKey });
      expect(result.status).toBe(401);
      expect(envelopeOf(result).metadata?.reason).toBe('management_key_required');
    }
    expect((await byok('', { key: null })).status).toBe(401);
  });

  it('deletes with {deleted: true}, after which the credential is 404', async () => {
    const result = await byok(`/${id}`, { method: 'DELETE' });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ deleted: true });
    expect((await byok(`/${id}`)).status).toBe(404);
  });

  it('announced the changes on events.byok.changed with the workspace only', () => {
    expect(events.length).toBeGreaterThanOrEqual(6);
    for (const event of events)
      expect(JSON.parse(event)).toEqual({ pattern: EVENTS.byokChanged, data: { workspaceId: stack.workspaceId } });
  });

  it('never revealed the secret: no response body, event or service log contains it', () => {
    expect(responses.length).toBeGreaterThan(30);
    const logs = readdirSync(stack.logDir).map((file) => ({ file, text: readFileSync(join(stack.logDir, file), 'utf8') }));
    expect(logs.length).toBeGreaterThanOrEqual(6);
    for (const canary of CANARIES) {
      for (const body of responses) expect(body).not.toContain(canary);
      for (const event of events) expect(event).not.toContain(canary);
      for (const { file, text } of logs) expect(text.includes(canary), `${file} contains the secret`).toBe(false);
    }
  });
});
