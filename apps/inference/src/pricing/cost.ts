import type { EndpointPricing } from '../catalog/catalog.service.js';
import { Prisma } from '../generated/prisma/client.js';

export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

export interface Cost {
  input: Prisma.Decimal;
  output: Prisma.Decimal;
  total: Prisma.Decimal;
}

/**
 * Cost of one generation in credits, in exact decimal arithmetic. Cached prompt tokens are
 * part of the prompt count and billed at the cached price.
 */
export function computeCost(pricing: EndpointPricing, tokens: TokenCounts): Cost {
  const cached = Math.min(tokens.cachedTokens, tokens.promptTokens);
  const input = pricing.prompt.mul(tokens.promptTokens - cached).add(pricing.cachedPrompt.mul(cached));
  const output = pricing.completion.mul(tokens.completionTokens);
  return { input, output, total: input.add(output) };
}
