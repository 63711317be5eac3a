import { describe, expect, it } from 'vitest';
import { Prisma } from '../generated/prisma/client.js';
import { computeCost } from './cost.js';

const pricing = {
  prompt: new Prisma.Decimal('0.00000015'),
  completion: new Prisma.Decimal('0.0000006'),
  cachedPrompt: new Prisma.Decimal('0.000000075'),
};

describe('computeCost', () => {
  it('bills prompt and completion tokens at their prices, exactly', () => {
    const cost = computeCost(pricing, { promptTokens: 1000, completionTokens: 500, cachedTokens: 0 });
    expect(cost.input.toString()).toBe('0.00015');
    expect(cost.output.toString()).toBe('0.0003');
    expect(cost.total.toString()).toBe('0.00045');
  });

  it('bills cached prompt tokens at the cached price', () => {
    const cost = computeCost(pricing, { promptTokens: 1000, completionTokens: 0, cachedTokens: 400 });
    expect(cost.input.toString()).toBe('0.00012');
  });

  it('does not drift the way float sums do', () => {
    const cost = computeCost({ ...pricing, prompt: new Prisma.Decimal('0.1'), completion: new Prisma.Decimal('0.2') }, {
      promptTokens: 1,
      completionTokens: 1,
      cachedTokens: 0,
    });
    expect(cost.total.toString()).toBe('0.3');
  });
});
