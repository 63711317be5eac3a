import { connect } from '@nats-io/transport-node';
import { OpenRouter } from '@openrouter/sdk';
import { EVENTS } from '@gw/contracts';
import { natsAuthOptions } from '@gw/messaging';
import { busAuth } from '@gw/testing';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });

/** Field types of the API key object, spec §2.2 (nullable where a key may have no value). */
const KEY_FIELDS: Record<string, string[]> = {
  hash: ['string'],
  name: ['string'],
  label: ['string'],
  created_at: ['string'],
  updated_at: ['string'],
  last_used_at: ['string', 'null'],
  expires_at: ['string', 'null'],
  creator_user_id: ['string'],
  workspace_id: ['string'],
  disabled: ['boolean'],
  limit: ['number', 'null'],
  limit_remaining: ['number', 'null'],
  limit_reset: ['string', 'null'],
  include_byok_in_limit: ['boolean'],
  rate_limit: ['object'],
  response_cache_ttl_seconds: ['number', 'null'],
  intern_id: ['string', 'null'],
  usage: ['number'],
  usage_daily: ['number'],
  usage_weekly: ['number'],
  usage_monthly: ['number'],
  byok_usage: ['number'],
  byok_usage_daily: ['number'],
  byok_usage_weekly: ['number'],
  byok_usage_monthly: ['number'],
  external_user: ['null'],
};

const typeOf = (value: unknown) => (value === null ? 'null' : typeof value);

describe('GET /v1/keys and /v1/keys/{hash}', () => {
  const sdk = new OpenRouter({ apiKey: stack.managementKey, serverURL: stack.baseUrl });

  beforeAll(() => database.connect());
  afterAll(() => database.end());

  it('lists the workspace keys through the OpenRouter SDK', async () => {
    const list = await sdk.apiKeys.list({});
    const hashes = list.data.map((key) => key.hash);
    expect(hashes).toContain(sha256(stack.apiKey));
    expect(hashes).toContain(sha256(stack.managementKey));
  });

  it('returns every field of spec §2.2 with its type, and never the secret', async () => {
    const result = await call('/keys', { key: stack.managementKey });
    expect(result.status).toBe(200);
    const keys = (result.body as { data: Array<Record<string, unknown>> }).data;
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(Object.keys(KEY_FIELDS).sort());
      for (const [field, types] of Object.entries(KEY_FIELDS)) expect(types, field).toContain(typeOf(key[field]));
      expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(key.workspace_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number.isNaN(Date.parse(key.created_at as string))).toBe(false);
    }
    expect(JSON.stringify(result.body)).not.toContain(stack.apiKey);
  });

  it('gets one key by hash through the SDK', async () => {
    const one = await sdk.apiKeys.get({ hash: sha256(stack.apiKey) });
    expect(one.data.name).toBe('Demo key');
    expect(one.data.workspaceId).toBe(stack.workspaceId);
  });

  it('answers 404 for an unknown or malformed hash', async () => {
    for (const hash of ['f'.repeat(64), 'not-a-hash']) {
      const result = await call(`/keys/${hash}`, { key: stack.managementKey });
      expect(result.status).toBe(404);
      expect(envelopeOf(result).metadata?.error_type).toBe('not_found');
    }
  });

  it.each([
    ['offset=-1', /offset/],
    ['offset=abc', /offset/],
    ['include_disabled=maybe', /include_disabled/],
    ['workspace_id=nope', /workspace_id/],
    ['unknown=1', /unknown/],
    [`workspace_id=${crypto.randomUUID()}`, /workspace/],
  ])('answers 400 for ?%s', async (query, message) => {
    const result = await call(`/keys?${query}`, { key: stack.managementKey });
    expect(result.status).toBe(400);
    expect(envelopeOf(result).message).toMatch(message);
  });

  it('pages with offset and filters by the default workspace explicitly too', async () => {
    const all = (await call('/keys', { key: stack.managementKey }).then((r) => r.body)) as { data: unknown[] };
    const skipped = (await call('/keys?offset=1', { key: stack.managementKey }).then((r) => r.body)) as { data: unknown[] };
    expect(skipped.data).toHaveLength(all.data.length - 1);
    const filtered = await call(`/keys?workspace_id=${stack.workspaceId}`, { key: stack.managementKey });
    expect((filtered.body as { data: unknown[] }).data).toHaveLength(all.data.length);
  });

  it('refuses a standard key with 401', async () => {
    const result = await call('/keys', { key: stack.apiKey });
    expect(result.status).toBe(401);
    expect(envelopeOf(result).metadata?.reason).toBe('management_key_required');
  });

  it('drops a disabled key from the auth cache as soon as management says so', async () => {
    // A key of its own, so disabling it does not disturb other tests.
    const secret = `sk-gw-v1-${crypto.randomUUID().replace(/-/g, '')}`;
    const hash = sha256(secret);
    await database.query(
      `INSERT INTO api_keys (hash, name, label, kind, workspace_id, creator_user_id, updated_at)
       SELECT $1, 'short-lived', 'sk-gw-v1-xxx...yyyy', 'standard', workspace_id, creator_user_id, now() FROM api_keys WHERE hash = $2`,
      [hash, sha256(stack.apiKey)],
    );
    expect((await call('/models', { key: secret })).status).toBe(200);

    await database.query('UPDATE api_keys SET disabled = true WHERE hash = $1', [hash]);
    // Still cached: the gateway has not been told yet (this is what the event is for).
    expect((await call('/models', { key: secret })).status).toBe(200);

    // As management, the one publisher of key changes.
    const nats = await connect({ servers: stack.natsUrl, ...natsAuthOptions(busAuth(stack.natsSeeds, 'management')) });
    nats.publish(EVENTS.keysChanged, JSON.stringify({ pattern: EVENTS.keysChanged, data: { keyHashes: [hash] } }));
    await nats.flush();
    await nats.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await call('/models', { key: secret })).status).toBe(401);

    const listed = (await call('/keys?include_disabled=true', { key: stack.managementKey })).body as {
      data: Array<{ hash: string; disabled: boolean }>;
    };
    expect(listed.data.find((key) => key.hash === hash)?.disabled).toBe(true);
    const active = (await call('/keys?include_disabled=false', { key: stack.managementKey })).body as { data: Array<{ hash: string }> };
    expect(active.data.some((key) => key.hash === hash)).toBe(false);
  });
});
