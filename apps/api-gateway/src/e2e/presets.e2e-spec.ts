import { OpenRouter } from '@openrouter/sdk';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/** Field types of the preset object and its version, spec §2.3. */
const PRESET_FIELDS: Record<string, string> = {
  id: 'string',
  name: 'string',
  slug: 'string',
  description: 'null',
  status: 'string',
  status_updated_at: 'string',
  created_at: 'string',
  updated_at: 'string',
  creator_user_id: 'string',
  workspace_id: 'string',
  designated_version_id: 'string',
  designated_version: 'object',
};
const VERSION_FIELDS = ['id', 'preset_id', 'version', 'config', 'system_prompt', 'creator_id', 'created_at', 'updated_at'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Version {
  id: string;
  version: number;
  config: Record<string, unknown>;
  system_prompt: string | null;
}
interface Preset {
  id: string;
  slug: string;
  designated_version_id: string;
  designated_version: Version;
}

const freshSlug = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const messages = [{ role: 'user', content: 'hi' }];
const post = (slug: string, body: unknown, key: string | null = stack.managementKey) =>
  call(`/presets/${slug}/chat/completions`, { key, body });

describe('presets through the gateway', () => {
  const sdk = new OpenRouter({ apiKey: stack.managementKey, serverURL: stack.baseUrl });

  it('creates a preset at version 1 and a second version through the OpenRouter SDK, and reads them back', async () => {
    const slug = freshSlug('sdk');
    const created = await sdk.presets.createPresetsChatCompletions({
      slug,
      chatRequest: {
        model: 'sim/gpt-4o-mini',
        temperature: 0.4,
        maxCompletionTokens: 64,
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'ignored' },
        ],
      },
    });
    expect(created.data).toMatchObject({ slug, name: slug, status: 'active', workspaceId: stack.workspaceId });
    expect(created.data.designatedVersion).toMatchObject({
      version: 1,
      systemPrompt: 'You are terse.',
      config: { model: 'sim/gpt-4o-mini', temperature: 0.4, max_completion_tokens: 64 },
    });

    const second = await sdk.presets.createPresetsChatCompletions({
      slug,
      chatRequest: { model: 'sim/gpt-4o', messages: [{ role: 'user', content: 'x' }] },
    });
    expect(second.data.id).toBe(created.data.id);
    expect(second.data.designatedVersion).toMatchObject({ version: 2, systemPrompt: null, config: { model: 'sim/gpt-4o' } });

    const fetched = await sdk.presets.get({ slug });
    expect(fetched.data.designatedVersionId).toBe(second.data.designatedVersion?.id);

    const versions = await sdk.presets.listVersions({ slug });
    expect(versions.result.totalCount).toBe(2);
    expect(versions.result.data.map((version) => version?.version)).toEqual([1, 2]);

    const first = await sdk.presets.getVersion({ slug, version: '1' });
    expect(first.data?.config).toEqual({ model: 'sim/gpt-4o-mini', temperature: 0.4, max_completion_tokens: 64 });

    const listed = await sdk.presets.list({});
    expect(listed.result.data.map((preset) => preset.slug)).toContain(slug);
    expect(listed.result.totalCount).toBeGreaterThanOrEqual(1);
  });

  it('answers every field of spec §2.3 with its type, and keeps only config fields', async () => {
    const slug = freshSlug('shape');
    const result = await post(slug, {
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'system', content: [{ type: 'text', text: 'Sys' }] }, ...messages],
      stream: true,
      prompt: 'legacy',
      session_id: 'abc',
      user: 'end-user-1',
      provider: { allow_fallbacks: false },
      reasoning: { effort: 'low' },
      reasoning_effort: 'low',
      stop: ['END'],
      service_tier: 'flex',
      metadata: { team: 'support' },
      something_else: 1,
    });
    expect(result.status).toBe(200);
    const preset = (result.body as { data: Record<string, unknown> }).data;
    expect(Object.keys(preset).sort()).toEqual(Object.keys(PRESET_FIELDS).sort());
    for (const [field, type] of Object.entries(PRESET_FIELDS))
      expect(preset[field] === null ? 'null' : typeof preset[field], field).toBe(type);
    expect(preset.id).toMatch(UUID);
    expect(preset.designated_version_id).toMatch(UUID);
    const version = preset.designated_version as Record<string, unknown>;
    expect(Object.keys(version).sort()).toEqual([...VERSION_FIELDS].sort());
    expect(version).toMatchObject({ preset_id: preset.id, version: 1, system_prompt: 'Sys' });
    expect(version.config).toEqual({
      model: 'sim/gpt-4o-mini',
      provider: { allow_fallbacks: false },
      reasoning: { effort: 'low' },
      reasoning_effort: 'low',
      stop: ['END'],
      service_tier: 'flex',
      metadata: { team: 'support' },
    });
  });

  const tooManyPairs = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v']));
  it.each([
    ['temperature above 2', { temperature: 2.01 }, /temperature/],
    ['temperature below 0', { temperature: -0.1 }, /temperature/],
    ['top_p above 1', { top_p: 1.01 }, /top_p/],
    ['frequency_penalty above 2', { frequency_penalty: 2.5 }, /frequency_penalty/],
    ['presence_penalty below -2', { presence_penalty: -2.5 }, /presence_penalty/],
    ['top_logprobs above 20', { top_logprobs: 21 }, /top_logprobs/],
    ['five stop sequences', { stop: ['a', 'b', 'c', 'd', 'e'] }, /stop/],
    ['17 metadata pairs', { metadata: tooManyPairs }, /metadata/],
    ['a 65-character metadata key', { metadata: { ['k'.repeat(65)]: 'v' } }, /metadata/],
    ['a metadata key with brackets', { metadata: { 'a[0]': 'v' } }, /metadata/],
    ['a 513-character metadata value', { metadata: { k: 'v'.repeat(513) } }, /metadata/],
    ['a 257-character session id', { session_id: 's'.repeat(257) }, /session_id/],
    ['reasoning_effort differing from reasoning.effort', { reasoning_effort: 'high', reasoning: { effort: 'low' } }, /reasoning_effort/],
    ['an unknown reasoning_effort', { reasoning_effort: 'extreme' }, /reasoning_effort/],
    ['an unknown service_tier', { service_tier: 'turbo' }, /service_tier/],
    ['no messages', { messages: undefined }, /messages/],
    ['an empty messages array', { messages: [] }, /messages/],
    ['a model naming another preset', { model: '@preset/other' }, /model/],
    ['an empty stop_server_tools_when', { stop_server_tools_when: [] }, /stop_server_tools_when must be an array of at least one/],
    [
      'an unknown stop condition',
      { stop_server_tools_when: [{ type: 'when_bored' }] },
      /stop_server_tools_when\[0\]: unknown stop condition/,
    ],
    ['a stop condition without its value', { stop_server_tools_when: [{ type: 'step_count_is' }] }, /step_count_is needs step_count/],
  ])('answers 400 with the envelope for %s, and stores nothing', async (_name, override, message) => {
    const slug = freshSlug('bad');
    const result = await post(slug, { model: 'sim/gpt-4o-mini', messages, ...override });
    expect(result.status).toBe(400);
    const error = envelopeOf(result);
    expect(error.metadata?.error_type).toBe('invalid_request');
    expect(error.message).toMatch(message);
    expect((await call(`/presets/${slug}`, { key: stack.managementKey })).status).toBe(404);
  });

  it.each([['Upper-Case'], ['-leading-dash'], ['has.dot'], ['x'.repeat(65)], ['sp%20ace']])('answers 400 for the slug %s', async (slug) => {
    const result = await post(slug, { messages });
    expect(result.status).toBe(400);
    expect(envelopeOf(result).message).toMatch(/slug/);
  });

  it('stores valid stop_server_tools_when, and a chat naming the preset runs with them', async () => {
    const slug = freshSlug('stops');
    const stops = [{ type: 'step_count_is', step_count: 1 }];
    const created = await post(slug, { model: 'sim/gpt-4o-mini', messages, stop_server_tools_when: stops });
    expect(created.status).toBe(200);
    expect((created.body as { data: Preset }).data.designated_version.config).toMatchObject({ stop_server_tools_when: stops });
    const used = await call('/chat/completions', { body: { model: `@preset/${slug}`, messages } });
    expect(used.status).toBe(200);
  });

  it('enforces the same bounds on POST /v1/chat/completions', async () => {
    for (const bad of [{ reasoning_effort: 'high', reasoning: { effort: 'low' } }, { top_p: 2 }, { service_tier: 'turbo' }]) {
      const result = await call('/chat/completions', { body: { model: 'sim/gpt-4o-mini', messages, ...bad } });
      expect(result.status, JSON.stringify(bad)).toBe(400);
      expect(envelopeOf(result).metadata?.error_type).toBe('invalid_request');
    }
  });

  it('refuses a standard key with 403 on every preset operation, before looking at the body', async () => {
    const slug = freshSlug('std');
    for (const result of [
      await post(slug, { messages }, stack.apiKey),
      await post(slug, { temperature: 9 }, stack.apiKey),
      await call('/presets', { key: stack.apiKey }),
      await call(`/presets/${slug}`, { key: stack.apiKey }),
      await call(`/presets/${slug}/versions`, { key: stack.apiKey }),
      await call(`/presets/${slug}/versions/1`, { key: stack.apiKey }),
    ]) {
      expect(result.status).toBe(403);
      expect(envelopeOf(result).metadata?.error_type).toBe('permission_denied');
    }
    expect((await post(slug, { messages }, null)).status).toBe(401);
    expect((await call(`/presets/${slug}`, { key: stack.managementKey })).status).toBe(404);
  });

  it('answers 404 for unknown presets and versions, and 400 for bad paging', async () => {
    const slug = freshSlug('known');
    expect((await post(slug, { messages })).status).toBe(200);
    for (const path of [
      '/presets/never-made',
      '/presets/never-made/versions',
      `/presets/${slug}/versions/2`,
      `/presets/${slug}/versions/abc`,
      `/presets/${slug}/versions/0`,
      '/presets/NOT_A_SLUG',
    ]) {
      const result = await call(path, { key: stack.managementKey });
      expect(result.status, path).toBe(404);
      expect(envelopeOf(result).metadata?.error_type).toBe('not_found');
    }
    for (const query of ['offset=-1', 'limit=0', 'limit=101', 'page=2']) {
      expect((await call(`/presets?${query}`, { key: stack.managementKey })).status, query).toBe(400);
    }
  });

  /**
   * What is guaranteed under concurrent posts to one slug: every answer is 200 or 409 (with
   * the envelope and `precondition_failed`), the 200s carry distinct version numbers, and the
   * stored versions are exactly 1..N, i.e. exactly the 200s' versions (plus any before).
   */
  it.each([
    ['a new slug', false],
    ['an existing slug', true],
  ])('keeps versions unique and gapless under 12 parallel posts to %s', async (_name, existsBefore) => {
    const slug = freshSlug('race');
    if (existsBefore) expect((await post(slug, { messages })).status).toBe(200);
    const before = existsBefore ? 1 : 0;
    const results = await Promise.all(Array.from({ length: 12 }, (_, index) => post(slug, { messages, seed: index })));
    const won: number[] = [];
    for (const result of results) {
      if (result.status === 200) won.push((result.body as { data: Preset }).data.designated_version.version);
      else {
        expect(result.status).toBe(409);
        expect(envelopeOf(result).metadata).toMatchObject({ error_type: 'precondition_failed', retryable: true });
      }
    }
    won.sort((a, b) => a - b);
    expect(new Set(won).size).toBe(won.length);
    expect(won.length).toBeGreaterThan(0);
    const versions = (await call(`/presets/${slug}/versions`, { key: stack.managementKey })).body as {
      data: Version[];
      total_count: number;
    };
    const stored = versions.data.map((version) => version.version);
    expect(stored).toEqual(Array.from({ length: before + won.length }, (_, index) => index + 1));
    expect(stored.slice(before)).toEqual(won);
    expect(versions.total_count).toBe(stored.length);
    const preset = ((await call(`/presets/${slug}`, { key: stack.managementKey })).body as { data: Preset }).data;
    expect(preset.designated_version.version).toBe(stored.length);
    console.info(`e2e presets race on ${_name}: ${won.length} x 200, ${results.length - won.length} x 409`);
  });

  it('lets the loser of a race retry until every writer has its own version', async () => {
    const slug = freshSlug('retry');
    const writeWithRetry = async (seed: number): Promise<number> => {
      for (;;) {
        const result = await post(slug, { messages, seed });
        if (result.status === 200) return (result.body as { data: Preset }).data.designated_version.version;
        expect(result.status).toBe(409);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
      }
    };
    const versions = await Promise.all(Array.from({ length: 10 }, (_, seed) => writeWithRetry(seed)));
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, index) => index + 1));
  });
});
