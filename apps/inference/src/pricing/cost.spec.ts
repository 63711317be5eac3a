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

  it('bills audio prompt and audio / image completion tokens at their own prices where the catalog has them', () => {
    const audio = {
      ...pricing,
      audioPrompt: new Prisma.Decimal('0.00004'),
      audioCompletion: new Prisma.Decimal('0.00008'),
      imageCompletion: new Prisma.Decimal('0.00003'),
    };
    const cost = computeCost(audio, {
      promptTokens: 100,
      completionTokens: 50,
      cachedTokens: 10,
      promptAudioTokens: 20,
      completionAudioTokens: 5,
      completionImageTokens: 5,
    });
    expect(cost.input.toString()).toBe(
      new Prisma.Decimal('0.00000015')
        .mul(70)
        .add(new Prisma.Decimal('0.000000075').mul(10))
        .add(new Prisma.Decimal('0.00004').mul(20))
        .toString(),
    );
    expect(cost.output.toString()).toBe(
      new Prisma.Decimal('0.0000006')
        .mul(40)
        .add(new Prisma.Decimal('0.00008').mul(5))
        .add(new Prisma.Decimal('0.00003').mul(5))
        .toString(),
    );
    // Without such prices, audio tokens cost what text costs.
    expect(computeCost(pricing, { promptTokens: 100, completionTokens: 50, cachedTokens: 0, promptAudioTokens: 20 }).input.toString()).toBe(
      '0.000015',
    );
  });

  it('bills cached prompt tokens at the cached price', () => {
    const cost = computeCost(pricing, { promptTokens: 1000, completionTokens: 0, cachedTokens: 400 });
    expect(cost.input.toString()).toBe('0.00012');
  });

  it('bills cache writes at the cache-write price (Anthropic: 1.25x), the prompt price when there is none', () => {
    // Sonnet prices: 3 / 0.3 / 3.75 USD per million prompt / cache-read / cache-write tokens.
    const sonnet = {
      prompt: new Prisma.Decimal('0.000003'),
      completion: new Prisma.Decimal('0.000015'),
      cachedPrompt: new Prisma.Decimal('0.0000003'),
    };
    const tokens = { promptTokens: 1000, completionTokens: 0, cachedTokens: 200, cacheWriteTokens: 500 };
    // 300 plain x 3e-6 + 200 read x 3e-7 + 500 written x 3.75e-6
    expect(computeCost({ ...sonnet, cacheWritePrompt: new Prisma.Decimal('0.00000375') }, tokens).input.toString()).toBe('0.002835');
    expect(computeCost(sonnet, tokens).input.toString()).toBe('0.00246');
  });

  it('does not drift the way float sums do', () => {
    const cost = computeCost(
      { ...pricing, prompt: new Prisma.Decimal('0.1'), completion: new Prisma.Decimal('0.2') },
      {
        promptTokens: 1,
        completionTokens: 1,
        cachedTokens: 0,
      },
    );
    expect(cost.total.toString()).toBe('0.3');
  });

  it('bills a whole request at the tier its prompt length reaches (Gemini Pro, Claude above 200K)', () => {
    const tiered = {
      ...pricing,
      tiers: [
        {
          promptTokensAbove: 100,
          prompt: new Prisma.Decimal('0.000001'),
          completion: new Prisma.Decimal('0.000002'),
          cachedPrompt: new Prisma.Decimal('0.0000001'),
        },
        {
          promptTokensAbove: 200,
          prompt: new Prisma.Decimal('0.000003'),
          completion: new Prisma.Decimal('0.000004'),
          cachedPrompt: new Prisma.Decimal('0.0000003'),
        },
      ],
    };
    expect(computeCost(tiered, { promptTokens: 100, completionTokens: 10, cachedTokens: 0 }).total.toString()).toBe(
      new Prisma.Decimal('0.00000015').mul(100).add(new Prisma.Decimal('0.0000006').mul(10)).toString(),
    );
    expect(computeCost(tiered, { promptTokens: 150, completionTokens: 10, cachedTokens: 50 }).total.toString()).toBe(
      new Prisma.Decimal('0.000001')
        .mul(100)
        .add(new Prisma.Decimal('0.0000001').mul(50))
        .add(new Prisma.Decimal('0.000002').mul(10))
        .toString(),
    );
    expect(computeCost(tiered, { promptTokens: 201, completionTokens: 1, cachedTokens: 0 }).total.toString()).toBe(
      new Prisma.Decimal('0.000003').mul(201).add(new Prisma.Decimal('0.000004')).toString(),
    );
  });

  it("adds a per-request fee to the prompt's cost once (Perplexity's search fee)", () => {
    const cost = computeCost(
      { ...pricing, request: new Prisma.Decimal('0.005') },
      { promptTokens: 1000, completionTokens: 0, cachedTokens: 0 },
    );
    expect(cost.input.toString()).toBe('0.00515');
    expect(cost.total.toString()).toBe('0.00515');
  });
});
