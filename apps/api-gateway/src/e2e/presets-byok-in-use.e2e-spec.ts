import { OpenRouter } from '@openrouter/sdk';
import OpenAI from 'openai';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/**
 * Issue 3's management features as inference uses them, across the real services: a preset
 * written through the management API shapes a completion, and a BYOK credential stored
 * through it is the key the provider sees. Each test works on a key of its own, so the
 * shared e2e workspace is left as it was.
 */

interface CreatedKey {
  data: { hash: string };
  key: string;
}

async function createKey(name: string): Promise<CreatedKey> {
  const created = await call('/keys', { key: stack.managementKey, method: 'POST', body: { name } });
  expect(created.status).toBe(201);
  return created.body as CreatedKey;
}

const clientFor = (apiKey: string) => new OpenAI({ apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const question = [{ role: 'user' as const, content: 'What is a gateway?' }];

describe("a preset holding other vendors' parameters, against strict providers", () => {
  const slug = `vendors-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    const created = await call(`/presets/${slug}/chat/completions`, {
      key: stack.managementKey,
      body: {
        model: 'sim/gpt-4o-mini',
        max_tokens: 5,
        top_k: 40,
        min_p: 0.05,
        repetition_penalty: 1.1,
        top_a: 0.2,
        messages: [{ role: 'user', content: 'ignored' }],
      },
    });
    expect(created.status).toBe(200);
  });

  it.each(['sim/gpt-4o-mini', 'sim/claude-sonnet'])(
    'answers on %s: what the provider does not take stays home, nulls do not erase the preset',
    async (model) => {
      const openai = clientFor(stack.apiKey);
      // The openai client sends what it is given; null means "not set", so the preset's max_tokens still applies.
      const answer = await openai.chat.completions.create({ model: `${model}@preset/${slug}`, messages: question, max_tokens: null });
      expect(answer.model).toBe(model);
      expect(answer.choices[0]!.finish_reason).toBe('length');
      expect(answer.usage!.completion_tokens).toBeLessThanOrEqual(5);
    },
  );

  it('answers /v1/messages with the preset on both formats', async () => {
    for (const model of ['sim/gpt-4o-mini', 'sim/claude-sonnet']) {
      const result = await call('/messages', { body: { model: `${model}@preset/${slug}`, max_tokens: 64, messages: question } });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ type: 'message', model });
    }
  });
});

describe('a preset applied to chat completions', () => {
  const slug = `applied-${randomBytes(4).toString('hex')}`;
  let openai: OpenAI;

  beforeAll(async () => {
    openai = clientFor(stack.apiKey);
    const created = await call(`/presets/${slug}/chat/completions`, {
      key: stack.managementKey,
      body: {
        model: 'sim/gpt-4o-mini',
        max_tokens: 3,
        messages: [
          { role: 'system', content: 'You are terse. Answer in riddles, always, whatever the question may be.' },
          { role: 'user', content: 'ignored' },
        ],
      },
    });
    expect(created.status).toBe(200);
  });

  it('runs the designated version: its model, its max_tokens and its system prompt', async () => {
    const plain = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: question });
    const viaPreset = await openai.chat.completions.create({ model: `@preset/${slug}`, messages: question });
    expect(viaPreset.model).toBe('sim/gpt-4o-mini');
    // max_tokens 3 from the preset cuts the reply.
    expect(viaPreset.choices[0]!.finish_reason).toBe('length');
    expect(viaPreset.usage!.completion_tokens).toBeLessThanOrEqual(3);
    // The system prompt reached the provider: more prompt tokens than the same question alone.
    expect(viaPreset.usage!.prompt_tokens).toBeGreaterThan(plain.usage!.prompt_tokens + 5);
  });

  it('lets request fields override the preset, in all three spellings', async () => {
    for (const request of [
      { model: `@preset/${slug}`, max_tokens: 200 },
      { model: `sim/gpt-4o-mini@preset/${slug}`, max_tokens: 200 },
      { model: 'sim/gpt-4o-mini', preset: slug, max_tokens: 200 },
    ]) {
      const completion = await openai.chat.completions.create({
        ...request,
        messages: question,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming);
      expect(completion.choices[0]!.finish_reason).toBe('stop');
    }
  });

  it('follows a new version at once (management tells inference to drop its cached copy)', async () => {
    const second = await call(`/presets/${slug}/chat/completions`, {
      key: stack.managementKey,
      body: { model: 'sim/gpt-4o-mini', max_tokens: 500, messages: [{ role: 'user', content: 'x' }] },
    });
    expect((second.body as { data: { designated_version: { version: number } } }).data.designated_version.version).toBe(2);
    await expect
      .poll(
        async () => (await openai.chat.completions.create({ model: `@preset/${slug}`, messages: question })).choices[0]!.finish_reason,
        { timeout: 5_000 },
      )
      .toBe('stop');
  });

  it('answers 404 not_found for a preset that does not exist', async () => {
    const result = await call('/chat/completions', { body: { model: '@preset/no-such-preset', messages: question } });
    expect(result.status).toBe(404);
    expect(envelopeOf(result).metadata?.error_type).toBe('not_found');
  });
});

describe('a BYOK credential used for routing', () => {
  const secret = `sk-byok-e2e-${randomBytes(12).toString('hex')}`;
  const openrouter = new OpenRouter({ apiKey: stack.managementKey, serverURL: stack.baseUrl });
  let own: CreatedKey;
  let credentialId: string;

  beforeAll(async () => {
    own = await createKey('byok user');
    // The simulator refuses `sk-sim-invalid`: a request that fails with it proves the BYOK key
    // was the one sent. Restricted to this test's key, so no other test routes through it.
    const created = await call('/byok', {
      key: stack.managementKey,
      body: {
        provider: 'simulator-openai',
        key: 'sk-sim-invalid',
        name: 'e2e',
        is_byok_only: true,
        allowed_api_key_hashes: [own.data.hash],
      },
    });
    expect(created.status).toBe(201);
    credentialId = (created.body as { data: { id: string } }).data.id;
  });

  afterAll(async () => {
    if (credentialId) await call(`/byok/${credentialId}`, { key: stack.managementKey, method: 'DELETE' });
  });

  it('sends the workspace key, not the gateway one (a refused BYOK-only key fails the request)', async () => {
    const result = await call('/chat/completions', { key: own.key, body: { model: 'sim/gpt-4o-mini', messages: question } });
    // The provider refused the credential; with is_byok_only there is no gateway key to fall back to.
    expect(result.status).toBe(502);
    expect(envelopeOf(result).metadata).toMatchObject({ error_type: 'provider_unavailable', upstream_status: 401 });
  });

  it('marks the generation is_byok and charges only the fee once a valid key is stored', async () => {
    const patched = await openrouter.byok.update({ id: credentialId, updateBYOKKeyRequest: { key: secret } });
    expect(JSON.stringify(patched)).not.toContain(secret);
    const openai = clientFor(own.key);
    // Inference drops its cached credentials on management's byok.changed event.
    await expect
      .poll(
        () =>
          openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: question }).then(
            () => true,
            () => false,
          ),
        { timeout: 5_000 },
      )
      .toBe(true);
    const answer = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: question });
    const usage = answer.usage as unknown as { is_byok: boolean; cost: number; cost_details: { upstream_inference_cost: number | null } };
    expect(usage.is_byok).toBe(true);
    expect(usage.cost).toBe(0); // BYOK_FEE_RATE defaults to 0
    expect(usage.cost_details.upstream_inference_cost).toBeGreaterThan(0);
  });

  it('leaves other keys of the workspace on the gateway key', async () => {
    const completion = await clientFor(stack.apiKey).chat.completions.create({ model: 'sim/gpt-4o-mini', messages: question });
    expect((completion.usage as unknown as { is_byok: boolean }).is_byok).toBe(false);
  });

  it('never shows the secret: not in the credential, not in any service log', async () => {
    const read = await call(`/byok/${credentialId}`, { key: stack.managementKey });
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect((read.body as { data: { label: string } }).data.label).toMatch(/\.\.\./);
    for (const file of readdirSync(stack.logDir)) {
      expect(readFileSync(join(stack.logDir, file), 'utf8')).not.toContain(secret);
    }
  });
});

describe('a provider the gateway holds no key for', () => {
  // The e2e stack points the catalog's keyless `openai` provider at the simulator.
  let own: CreatedKey;
  let credentialId: string | undefined;

  beforeAll(async () => {
    own = await createKey('byok-only provider');
  });

  afterAll(async () => {
    if (credentialId) await call(`/byok/${credentialId}`, { key: stack.managementKey, method: 'DELETE' });
  });

  it('is not listed, and answers 400 byok_required without a BYOK key', async () => {
    const listed = (await clientFor(own.key).models.list()).data.map((model) => model.id);
    expect(listed).not.toContain('openai/gpt-4o-mini');
    const refused = await call('/chat/completions', { key: own.key, body: { model: 'openai/gpt-4o-mini', messages: question } });
    expect(refused.status).toBe(400);
    expect(envelopeOf(refused).metadata).toMatchObject({ error_type: 'invalid_request', reason: 'byok_required' });
  });

  it('is routed with the workspace key once one is stored', async () => {
    const created = await call('/byok', {
      key: stack.managementKey,
      body: { provider: 'openai', key: `sk-byok-${randomBytes(8).toString('hex')}`, allowed_api_key_hashes: [own.data.hash] },
    });
    expect(created.status).toBe(201);
    credentialId = (created.body as { data: { id: string } }).data.id;
    const openai = clientFor(own.key);
    await expect
      .poll(
        () =>
          openai.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: question }).then(
            () => true,
            () => false,
          ),
        { timeout: 5_000 },
      )
      .toBe(true);
    const completion = await openai.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: question });
    expect((completion as unknown as { provider: string }).provider).toBe('OpenAI');
    expect((completion.usage as unknown as { is_byok: boolean }).is_byok).toBe(true);
    // Listed now for this key (the credential admits it), still not for another key of the workspace.
    expect((await openai.models.list()).data.map((model) => model.id)).toContain('openai/gpt-4o-mini');
    const other = await createKey('not on the allow-list');
    expect((await clientFor(other.key).models.list()).data.map((model) => model.id)).not.toContain('openai/gpt-4o-mini');
  });
});

describe('chat on an embeddings model', () => {
  it('is refused with 400, pointing at /v1/embeddings', async () => {
    const result = await call('/chat/completions', { body: { model: 'sim/text-embedding-3-small', messages: question } });
    expect(result.status).toBe(400);
    expect(envelopeOf(result).message).toMatch(/embeddings/);
  });
});
