import OpenAI, { BadRequestError } from 'openai';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const model = 'sim/text-embedding-3-small';

describe('POST /v1/embeddings through the gateway', () => {
  it('returns float vectors with the spec §2.1 body via the openai client', async () => {
    const result = await openai.embeddings.create({
      model,
      input: ['The food was delicious', 'and the waiter...'],
      encoding_format: 'float',
      dimensions: 8,
    });
    expect(result.object).toBe('list');
    expect(result.model).toBe(model);
    expect((result as unknown as { id: string }).id).toMatch(/^gen-/);
    expect(result.data.map((item) => [item.object, item.index, item.embedding.length])).toEqual([
      ['embedding', 0, 8],
      ['embedding', 1, 8],
    ]);
    const usage = result.usage as unknown as Record<string, any>;
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens);
    // sim/text-embedding-3-small: 0.00000002 per prompt token.
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.00000002, 14);
    expect(usage.is_byok).toBe(false);
    expect(usage.cost_details).toMatchObject({ upstream_inference_cost: null, upstream_inference_completions_cost: 0 });
  });

  it('passes base64 vectors through: the client decodes them to the same floats', async () => {
    const input = 'Hello, world!';
    const floats = await openai.embeddings.create({ model, input, encoding_format: 'float', dimensions: 4 });
    // The openai client asks for base64 by default and decodes it itself.
    const decoded = await openai.embeddings.create({ model, input, dimensions: 4 });
    decoded.data[0]!.embedding.forEach((value, i) => expect(value).toBeCloseTo(floats.data[0]!.embedding[i]!, 6));
    const raw = await call('/embeddings', { body: { model, input, encoding_format: 'base64', dimensions: 4 } });
    expect(raw.status).toBe(200);
    expect(typeof (raw.body as { data: Array<{ embedding: unknown }> }).data[0]!.embedding).toBe('string');
  });

  it('refuses a chat model with a 400 that says why', async () => {
    const error = await openai.embeddings.create({ model: 'sim/gpt-4o-mini', input: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toMatch(/is a chat model and does not create embeddings/);
  });

  it('validates the body with the envelope: empty input, bad encoding, too many inputs', async () => {
    for (const body of [
      { model, input: '' },
      { model, input: 'x', encoding_format: 'int8' },
      { model, input: Array.from({ length: 2049 }, () => 'x') },
      { input: 'x' },
    ]) {
      const result = await call('/embeddings', { body });
      expect(result.status).toBe(400);
      envelopeOf(result);
    }
    const unknown = await call('/embeddings', { body: { model: 'sim/nope', input: 'x' } });
    expect(unknown.status).toBe(404);
  });
});
