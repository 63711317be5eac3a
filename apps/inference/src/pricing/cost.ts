import type { EndpointPricing } from '../catalog/catalog.service.js';
import { Prisma } from '../generated/prisma/client.js';

export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  /** Prompt tokens written to the provider's cache (Anthropic), also part of the prompt count. */
  cacheWriteTokens?: number;
}

export interface Cost {
  input: Prisma.Decimal;
  output: Prisma.Decimal;
  total: Prisma.Decimal;
}

/**
 * Cost of one generation in credits, in exact decimal arithmetic. Cached prompt tokens (cache
 * reads) and cache writes are part of the prompt count and billed at their own prices.
 */
export function computeCost(pricing: EndpointPricing, tokens: TokenCounts): Cost {
  const cached = Math.min(tokens.cachedTokens, tokens.promptTokens);
  const written = Math.min(tokens.cacheWriteTokens ?? 0, tokens.promptTokens - cached);
  const input = pricing.prompt
    .mul(tokens.promptTokens - cached - written)
    .add(pricing.cachedPrompt.mul(cached))
    .add((pricing.cacheWritePrompt ?? pricing.prompt).mul(written));
  const output = pricing.completion.mul(tokens.completionTokens);
  return { input, output, total: input.add(output) };
}
