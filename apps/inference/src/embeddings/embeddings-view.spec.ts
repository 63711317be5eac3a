import { describe, expect, it } from 'vitest';
import { Prisma } from '../generated/prisma/client.js';
import { chargeFor } from '../pricing/charge.js';
import { computeCost } from '../pricing/cost.js';
import { buildEmbeddingsView } from './embeddings-view.js';
import { embeddingsUsage } from './embeddings.service.js';
import { upstreamBody } from './openai-embeddings.client.js';

const pricing = {
  prompt: new Prisma.Decimal('0.00000002'),
  completion: new Prisma.Decimal(0),
  cachedPrompt: new Prisma.Decimal('0.00000002'),
};

/** OpenAI's documented embeddings response (https://platform.openai.com/docs/api-reference/embeddings/object). */
const documented = {
  object: 'list',
  data: [{ object: 'embedding', embedding: [0.0023064255, -0.009327292, -0.0028842222], index: 0 }],
  model: 'text-embedding-3-small',
  usage: { prompt_tokens: 8, total_tokens: 8 },
};

describe('embeddings view', () => {
  it('renders the spec §2.1 body with the public model, the generation id and a decimal cost', () => {
    const usage = embeddingsUsage(documented, 'The food was delicious and the waiter...');
    const charge = chargeFor(computeCost(pricing, usage), false, '0');
    const view = buildEmbeddingsView({
      id: 'gen-1',
      modelId: 'sim/text-embedding-3-small',
      provider: 'Simulator',
      result: documented,
      usage,
      charge,
    });
    expect(view).toEqual({
      object: 'list',
      id: 'gen-1',
      model: 'sim/text-embedding-3-small',
      provider: 'Simulator',
      data: [{ object: 'embedding', embedding: [0.0023064255, -0.009327292, -0.0028842222], index: 0 }],
      usage: {
        prompt_tokens: 8,
        total_tokens: 8,
        cost: 0.00000016,
        is_byok: false,
        cost_details: {
          upstream_inference_cost: null,
          upstream_inference_prompt_cost: 0.00000016,
          upstream_inference_completions_cost: 0,
          upstream_inference_input_cost: 0.00000016,
          upstream_inference_output_cost: 0,
        },
      },
    });
  });

  it('passes a base64 vector through untouched and charges only the fee on BYOK', () => {
    const result = { data: [{ embedding: 'AACAPwAAAEA=' }, { embedding: 'AABAQA==' }], usage: { prompt_tokens: 4 } };
    const usage = embeddingsUsage(result, ['a', 'b']);
    const charge = chargeFor(computeCost(pricing, usage), true, '0');
    const view = buildEmbeddingsView({ id: 'gen-2', modelId: 'm', provider: 'P', result, usage, charge });
    expect(view.data).toEqual([
      { object: 'embedding', embedding: 'AACAPwAAAEA=', index: 0 },
      { object: 'embedding', embedding: 'AABAQA==', index: 1 },
    ]);
    expect(view.usage).toMatchObject({ cost: 0, is_byok: true, cost_details: { upstream_inference_cost: 0.00000008 } });
  });

  it('estimates prompt tokens, and says so, when the provider reports none', () => {
    expect(embeddingsUsage({ data: [] }, ['abcdefgh', [1, 2, 3]])).toEqual({
      promptTokens: 5,
      completionTokens: 0,
      cachedTokens: 0,
      reasoningTokens: 0,
      estimated: true,
    });
  });

  it('sends the upstream model and the hashed end user, never the raw one or routing fields', () => {
    const body = { model: 'sim/text-embedding-3-small', input: 'x', user: 'alice', provider: { order: ['a'] }, dimensions: 8 };
    expect(upstreamBody(body, 'text-embedding-3-small', 'hash1')).toEqual({
      model: 'text-embedding-3-small',
      input: 'x',
      user: 'hash1',
      dimensions: 8,
    });
    expect(upstreamBody(body, 'text-embedding-3-small')).not.toHaveProperty('user');
  });
});
