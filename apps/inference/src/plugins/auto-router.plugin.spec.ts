import { describe, expect, it } from 'vitest';
import type { RoutableModel } from '../catalog/catalog.service.js';
import { Prisma } from '../generated/prisma/client.js';
import { chooseModel, parseAutoRouter } from './auto-router.plugin.js';

function model(
  id: string,
  price: number,
  options: { context?: number; parameters?: string[]; inputs?: string[]; listed?: boolean; keyless?: boolean } = {},
): RoutableModel {
  return {
    config: {
      id,
      name: id,
      contextLength: options.context ?? 100_000,
      supportedParameters: options.parameters ?? ['temperature'],
      inputModalities: options.inputs,
      listed: options.listed,
      endpoints: [],
    } as unknown as RoutableModel['config'],
    endpoints: [
      {
        provider: {
          id: 'p',
          name: 'P',
          format: 'openai',
          baseUrl: 'http://p',
          apiKey: options.keyless ? '' : 'k',
        } as RoutableModel['endpoints'][number]['provider'],
        upstreamModel: id,
        supportedParameters: new Set(options.parameters ?? ['temperature']),
        pricing: { prompt: new Prisma.Decimal(price), completion: new Prisma.Decimal(price), cachedPrompt: new Prisma.Decimal(price) },
      },
    ],
  };
}

const catalog = [
  model('sim/a', 5),
  model('sim/b', 1),
  model('sim/c', 3, { parameters: ['temperature', 'tools'] }),
  model('sim/d', 4, { inputs: ['text', 'image'] }),
  model('sim/e', 2),
  model('other/x', 0.5),
  model('sim/hidden', 0.1, { listed: false }),
  model('sim/keyless', 0.2, { keyless: true }),
  model('sim/tiny', 0.3, { context: 10 }),
];
const body = { messages: [{ role: 'user', content: 'Hello there, how are you today?' }] };
const config = (raw: Record<string, unknown>) => parseAutoRouter({ id: 'auto-router', ...raw }, 'plugins[0]');

describe('auto-router', () => {
  it('picks the cheapest listed, callable model that fits, within allowed_models and outside excluded_models', () => {
    expect(chooseModel(body, config({}), catalog, { filesAsText: false })).toMatchObject({ model: 'other/x', rule: 'cheapest' });
    expect(chooseModel(body, config({ allowed_models: ['sim/*'] }), catalog, { filesAsText: false }).model).toBe('sim/b');
    expect(
      chooseModel(body, config({ allowed_models: ['sim/*'], excluded_models: ['sim/b'] }), catalog, { filesAsText: false }).model,
    ).toBe('sim/e');
  });

  it('requires the structural parameters and input kinds the request uses', () => {
    const withTools = { ...body, tools: [{ type: 'function', function: { name: 'f' } }] };
    expect(chooseModel(withTools, config({ allowed_models: ['sim/*'] }), catalog, { filesAsText: false }).model).toBe('sim/c');
    const withImage = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://i.test/a.png' } }] }] };
    expect(chooseModel(withImage, config({ allowed_models: ['sim/*'] }), catalog, { filesAsText: false }).model).toBe('sim/d');
  });

  it('takes the most expensive candidate inside the cost_tier band', () => {
    // sim/*, by price: b(1) e(2) c(3) d(4) a(5): ranks 0..4 at percentiles 0, 20, 40, 60, 80.
    const pick = (tier: string) =>
      chooseModel(body, config({ allowed_models: ['sim/*'], cost_tier: tier }), catalog, { filesAsText: false }).model;
    expect([pick('low'), pick('medium'), pick('high'), pick('xhigh'), pick('max')]).toEqual(['sim/b', 'sim/e', 'sim/c', 'sim/d', 'sim/a']);
  });

  it("keeps the last assistant message's model with pin_model, when it is still a candidate", () => {
    const conversation = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'yo', model: 'sim/a' },
        { role: 'user', content: 'again' },
      ],
    };
    expect(
      chooseModel(conversation, config({ allowed_models: ['sim/*'], pin_model: true }), catalog, { filesAsText: false }),
    ).toMatchObject({ model: 'sim/a', rule: 'pin_model' });
  });

  it('says why when nothing fits', () => {
    expect(() => chooseModel(body, config({ allowed_models: ['nothing/*'] }), catalog, { filesAsText: false })).toThrow(
      /auto-router found no model/,
    );
  });
});
