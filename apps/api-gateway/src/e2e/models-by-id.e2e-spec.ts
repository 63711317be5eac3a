import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/** GET /v1/models/{id}, ids with a slash, in the shape of the client asking (OpenAI's or Anthropic's). */
const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: stack.apiKey, baseURL: new URL(stack.baseUrl).origin, maxRetries: 0 });

describe('GET /v1/models/{id}', () => {
  it('openai models.retrieve (the id sent as sim%2Fgpt-4o-mini) answers the entry GET /v1/models lists', async () => {
    const listed = (await openai.models.list()).data.find((model) => model.id === 'sim/gpt-4o-mini');
    const model = await openai.models.retrieve('sim/gpt-4o-mini');
    expect(model).toEqual(listed);
    expect(model).toMatchObject({ id: 'sim/gpt-4o-mini', object: 'model', owned_by: expect.any(String) });
  });

  it('takes the id raw, slash and all', async () => {
    const raw = await call('/models/sim/gpt-4o-mini');
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ id: 'sim/gpt-4o-mini', object: 'model' });
  });

  it("@anthropic-ai/sdk models.retrieve gets Anthropic's ModelInfo", async () => {
    const model = await anthropic.models.retrieve('sim/claude-sonnet');
    expect(model).toMatchObject({ type: 'model', id: 'sim/claude-sonnet', lifecycle: 'active', capabilities: null });
    expect(typeof model.display_name).toBe('string');
    expect(new Date(model.created_at).toISOString()).toBe(model.created_at);
    expect(model.max_input_tokens).toBeGreaterThan(0);
  });

  it('an unknown id is a 404 envelope; the clients raise their NotFoundError', async () => {
    const result = await call('/models/sim/no-such-model');
    expect(result.status).toBe(404);
    expect(envelopeOf(result).message).toContain('sim/no-such-model');
    await expect(openai.models.retrieve('sim/no-such-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(anthropic.models.retrieve('sim/no-such-model')).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });
});
