import { Prisma } from '../generated/prisma/client.js';
import { computeCost, pricingVariants } from '../pricing/cost.js';
import { completionTokenBound } from '../pricing/token-estimate.js';
import { chargeFor } from '../pricing/charge.js';
import type { RouteAttempt } from '../routing/route-types.js';

/** Role and framing tokens a chat format adds per message (as the usage estimate counts them). */
const TOKENS_PER_MESSAGE = 4;

/**
 * The most a chat call can charge: its prompt at one token per character (real tokenizers put
 * several characters in a token), its answer at `max_completion_tokens` / `max_tokens` (the
 * model's context length when the request sets none) times `n`, priced on every attempt the
 * route may make, the dearest taken. It is what is reserved before the call.
 */
export function worstCaseChatCharge(
  attempts: readonly RouteAttempt[],
  body: Record<string, unknown>,
  contextLengthOf: (modelId: string) => number,
  byokFeeRate: Prisma.Decimal,
): Prisma.Decimal {
  const promptTokens = promptTokenBound(body);
  const bound = completionTokenBound(body);
  const choices = typeof body.n === 'number' && Number.isInteger(body.n) && body.n > 0 ? body.n : 1;
  let worst = new Prisma.Decimal(0);
  for (const attempt of attempts) {
    const completionTokens = bound ?? contextLengthOf(attempt.modelId) * choices;
    // Every time-of-day price: the hold is taken before the call starts.
    for (const pricing of pricingVariants(attempt.endpoint.pricing)) {
      const upstream = computeCost(pricing, { promptTokens, completionTokens, cachedTokens: 0 });
      const { charged } = chargeFor(upstream, attempt.credential.kind === 'byok', byokFeeRate);
      if (charged.gt(worst)) worst = charged;
    }
  }
  return worst;
}

/** The most an embeddings call can charge: its input at one token per character. */
export function worstCaseEmbeddingsCharge(attempts: readonly RouteAttempt[], input: unknown, byokFeeRate: Prisma.Decimal): Prisma.Decimal {
  const promptTokens = characters(input);
  let worst = new Prisma.Decimal(0);
  for (const attempt of attempts) {
    for (const pricing of pricingVariants(attempt.endpoint.pricing)) {
      const upstream = computeCost(pricing, { promptTokens, completionTokens: 0, cachedTokens: 0 });
      const { charged } = chargeFor(upstream, attempt.credential.kind === 'byok', byokFeeRate);
      if (charged.gt(worst)) worst = charged;
    }
  }
  return worst;
}

/** A part that is not text (an image, audio, a file): what one is taken to cost, in tokens. */
const MEDIA_PART_TOKENS = 2_000;

function promptTokenBound(body: Record<string, unknown>): number {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  let tokens = TOKENS_PER_MESSAGE * messages.length;
  for (const message of messages) {
    if (!message || typeof message !== 'object') continue;
    const { content, tool_calls: toolCalls } = message as Record<string, unknown>;
    if (typeof content === 'string') tokens += content.length;
    else if (Array.isArray(content))
      for (const part of content as Array<{ text?: unknown } | null>)
        tokens += typeof part?.text === 'string' ? part.text.length : MEDIA_PART_TOKENS;
    tokens += characters(toolCalls);
  }
  // Tool definitions and the response schema are sent as prompt too.
  return tokens + characters(body.tools) + characters(body.response_format);
}

/** Characters of every string in a JSON value (keys included: they are sent as well). */
function characters(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + characters(item), 0);
  if (value && typeof value === 'object') {
    let sum = 0;
    for (const [key, item] of Object.entries(value)) sum += key.length + characters(item);
    return sum;
  }
  return 0;
}
