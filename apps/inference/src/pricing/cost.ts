import type { EndpointPricing } from '../catalog/catalog.service.js';
import { Prisma } from '../generated/prisma/client.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import { windowAt, type PriceWindowPricing } from './price-windows.js';

export type TokenCounts = Pick<
  NormalizedUsage,
  | 'promptTokens'
  | 'completionTokens'
  | 'cachedTokens'
  | 'cacheWriteTokens'
  | 'promptAudioTokens'
  | 'completionAudioTokens'
  | 'completionImageTokens'
>;

export interface Cost {
  input: Prisma.Decimal;
  output: Prisma.Decimal;
  total: Prisma.Decimal;
}

/**
 * Cost of one generation in credits, in exact decimal arithmetic. Cached prompt tokens (cache
 * reads) and cache writes are part of the prompt count and billed at their own prices; so are
 * audio prompt tokens and audio / image completion tokens where the endpoint has a price for
 * them (otherwise they cost what text costs). With `callStartedAt` (epoch ms), the time-of-day
 * window in force when the provider call started sets the token prices (a call is never split).
 */
export function computeCost(endpointPricing: EndpointPricing, tokens: TokenCounts, callStartedAt?: number): Cost {
  const pricing = atPromptLength(atTimeOfDay(endpointPricing, callStartedAt), tokens.promptTokens);
  const cached = Math.min(tokens.cachedTokens, tokens.promptTokens);
  const written = Math.min(tokens.cacheWriteTokens ?? 0, tokens.promptTokens - cached);
  const audioIn = pricing.audioPrompt ? Math.min(tokens.promptAudioTokens ?? 0, tokens.promptTokens - cached - written) : 0;
  const input = pricing.prompt
    .mul(tokens.promptTokens - cached - written - audioIn)
    .add(pricing.cachedPrompt.mul(cached))
    .add((pricing.cacheWritePrompt ?? pricing.prompt).mul(written))
    .add((pricing.audioPrompt ?? pricing.prompt).mul(audioIn));
  const audioOut = pricing.audioCompletion ? Math.min(tokens.completionAudioTokens ?? 0, tokens.completionTokens) : 0;
  const imageOut = pricing.imageCompletion ? Math.min(tokens.completionImageTokens ?? 0, tokens.completionTokens - audioOut) : 0;
  const output = pricing.completion
    .mul(tokens.completionTokens - audioOut - imageOut)
    .add((pricing.audioCompletion ?? pricing.completion).mul(audioOut))
    .add((pricing.imageCompletion ?? pricing.completion).mul(imageOut));
  // A per-request fee (Perplexity's search fee) is part of what the prompt costs.
  const inputWithFee = pricing.request ? input.add(pricing.request) : input;
  return { input: inputWithFee, output, total: inputWithFee.add(output) };
}

/**
 * The prices a request pays at its prompt length: a tier's (Gemini Pro and Claude above 200K
 * prompt tokens, Claude Haiku 5.5 above 100K) replace the base ones on every token of it.
 */
function atPromptLength(pricing: EndpointPricing, promptTokens: number): EndpointPricing {
  const tier = pricing.tiers?.filter((candidate) => promptTokens > candidate.promptTokensAbove).at(-1);
  if (!tier) return pricing;
  return {
    ...pricing,
    prompt: tier.prompt,
    completion: tier.completion,
    cachedPrompt: tier.cachedPrompt,
    ...(tier.cacheWritePrompt ? { cacheWritePrompt: tier.cacheWritePrompt } : {}),
  };
}

/** The prices of the window holding `callStartedAt` in place of the base ones and their prompt-length tiers. */
function atTimeOfDay(pricing: EndpointPricing, callStartedAt: number | undefined): EndpointPricing {
  const window = callStartedAt === undefined ? undefined : windowAt(pricing.windows, callStartedAt);
  return window ? withWindow(pricing, window) : pricing;
}

/** The base prices and every window's: a worst case (a spend hold) takes the dearest. */
export function pricingVariants(pricing: EndpointPricing): EndpointPricing[] {
  return [pricing, ...(pricing.windows ?? []).map((window) => withWindow(pricing, window))];
}

function withWindow(pricing: EndpointPricing, window: PriceWindowPricing): EndpointPricing {
  const { tiers: _tiers, windows: _windows, cacheWritePrompt: _write, ...rest } = pricing;
  return {
    ...rest,
    prompt: window.prompt,
    completion: window.completion,
    cachedPrompt: window.cachedPrompt,
    ...(window.cacheWritePrompt ? { cacheWritePrompt: window.cacheWritePrompt } : {}),
  };
}
