import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/**
 * Issue 10's mappings through the gateway against the strict simulator, which refuses what the
 * real providers refuse (OpenAI: `fast` is not a tier; Anthropic: unknown fields, tiers other
 * than auto / standard_only, a structured-output format other than json_schema).
 */
const openai = new OpenAI({
  apiKey: stack.apiKey,
  baseURL: stack.baseUrl,
  maxRetries: 0,
  defaultHeaders: { 'x-service-metadata': 'enabled' },
});
const messages = [{ role: 'user' as const, content: 'Which city hosts the gateway?' }];
type Extra = Record<string, unknown>;
type Answer = OpenAI.Chat.ChatCompletion & { provider?: string; service_metadata?: { strategy: string } };

const create = async (body: Extra): Promise<Answer> =>
  (await openai.chat.completions.create({ messages, ...body } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming)) as Answer;

describe('service tiers (spec §4.5)', () => {
  it('sends `fast` to OpenAI as priority and reports the tier that served it', async () => {
    const answer = await create({ model: 'sim/gpt-4o-mini', service_tier: 'fast' });
    expect(answer.service_tier).toBe('priority');
  });

  it('routes `ultrafast` to the endpoint with the best tier and sends it that tier', async () => {
    const answer = await create({ model: 'sim/gpt-4o-mini-tiers', service_tier: 'ultrafast' });
    expect(answer.provider).toBe('Simulator B');
    expect(answer.service_tier).toBe('priority');
    const plain = await create({ model: 'sim/gpt-4o-mini-tiers' });
    expect(plain.provider).toBe('Simulator');
  });

  it('sends Anthropic its own tier words (fast: auto, default: standard_only)', async () => {
    expect((await create({ model: 'sim/claude-sonnet', service_tier: 'fast' })).service_tier).toBe('priority');
    expect((await create({ model: 'sim/claude-sonnet', service_tier: 'default' })).service_tier).toBe('default');
  });

  it('refuses a tier outside the spec with 400', async () => {
    const refused = await call('/chat/completions', { body: { model: 'sim/gpt-4o-mini', messages, service_tier: 'turbo' } });
    expect(refused.status).toBe(400);
    expect(envelopeOf(refused).message).toMatch(/service_tier/);
  });
});

describe('response_format on an Anthropic-format model', () => {
  it('gets JSON matching the schema through Anthropic structured outputs', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, country: { type: 'string' } },
      required: ['city', 'country'],
      additionalProperties: false,
    };
    const answer = await create({
      model: 'sim/claude-sonnet',
      response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
    });
    expect(Object.keys(JSON.parse(answer.choices[0]!.message.content!)).sort()).toEqual(['city', 'country']);
  });

  it('answers 400 naming json_object instead of ignoring it', async () => {
    const refused = await call('/chat/completions', {
      body: { model: 'sim/claude-sonnet', messages, response_format: { type: 'json_object' } },
    });
    expect(refused.status).toBe(400);
    expect(envelopeOf(refused).message).toMatch(/json_object.*not supported/);
  });
});

describe('the deprecated route alias (spec §4.5, §9)', () => {
  it('route "sort" sorts the endpoints of every model together', async () => {
    const answer = await create({
      model: 'sim/gpt-4o-mini',
      models: ['sim/gpt-4o-mini-multi'],
      provider: { sort: 'price' },
      route: 'sort',
    });
    expect(answer.service_metadata?.strategy).toBe('sort:price+models:partition-none');
    // Simulator B on the fallback model is cheaper than the first model's only endpoint.
    expect(answer.provider).toBe('Simulator B');
    const byModel = await create({
      model: 'sim/gpt-4o-mini',
      models: ['sim/gpt-4o-mini-multi'],
      provider: { sort: 'price' },
      route: 'fallback',
    });
    expect(byModel.provider).toBe('Simulator');
  });

  it('refuses other route values with 400', async () => {
    const refused = await call('/chat/completions', { body: { model: 'sim/gpt-4o-mini', messages, route: 'random' } });
    expect(refused.status).toBe(400);
  });
});

describe('prompt caching on an Anthropic-format model', () => {
  it('marks the last block for the top-level cache_control and reports the cache write, then the read', async () => {
    await fetch(`${stack.simulatorUrl}/sim/reset`, { method: 'POST' });
    const system = `You answer about gateways. ${'Reference material. '.repeat(700)}`;
    const body = {
      model: 'sim/claude-sonnet',
      messages: [{ role: 'system', content: system }, ...messages],
      cache_control: { type: 'ephemeral' },
    };
    const first = await create(body);
    const written = (first.usage!.prompt_tokens_details as { cache_write_tokens?: number }).cache_write_tokens!;
    expect(written).toBeGreaterThanOrEqual(1024);
    const second = await create(body);
    expect(second.usage!.prompt_tokens_details!.cached_tokens).toBe(written);
    // Cache reads cost less than fresh prompt tokens.
    expect((second.usage as unknown as { cost: number }).cost).toBeLessThan((first.usage as unknown as { cost: number }).cost);
  });
});
