import { GatewayError } from '@gw/errors';
import type { RoutableModel } from '../catalog/catalog.service.js';
import { gatewayHoldsKey } from '../catalog/catalog-snapshot.js';
import { servesEmbeddings } from '../catalog/model-kind.js';
import { estimatePromptTokens } from '../pricing/token-estimate.js';
import { requestedParameters, supports } from '../routing/parameter-support.js';
import { matchesPattern, PluginOptions } from './plugin-options.js';

type Json = Record<string, unknown>;

/** The model names that ask the auto-router to choose (OpenRouter's slug and a short one). */
export const AUTO_MODELS = new Set(['openrouter/auto', 'auto']);

const COST_TIERS = { low: [0, 20], medium: [20, 40], high: [40, 60], xhigh: [60, 80], max: [80, 100] } as const;
type CostTier = keyof typeof COST_TIERS;

export interface AutoRouterConfig {
  allowedModels?: string[];
  excludedModels?: string[];
  /** Price percentile band [from, to) the choice is made in. */
  band?: readonly [number, number];
  pinModel: boolean;
}

export function parseAutoRouter(raw: Json, where: string): AutoRouterConfig {
  const options = new PluginOptions(raw, where, 'auto-router', [
    'allowed_models',
    'excluded_models',
    'cost_tier',
    'cost_quality_tradeoff',
    'pin_model',
  ]);
  const tier = options.string('cost_tier', { oneOf: Object.keys(COST_TIERS) }) as CostTier | undefined;
  const tradeoff = options.number('cost_quality_tradeoff', 0, 10);
  // Deprecated numeric setting (SDK): 10 keeps only about the cheapest 10th percentile, 0 up to the 90th; cost_tier wins.
  const band = tier ? COST_TIERS[tier] : tradeoff !== undefined ? ([0, 90 - 8 * tradeoff] as const) : undefined;
  return {
    allowedModels: options.strings('allowed_models', { minItems: 1 }),
    excludedModels: options.strings('excluded_models'),
    ...(band ? { band } : {}),
    pinModel: options.boolean('pin_model') ?? false,
  };
}

/** Parameters a model must take to be chosen (the others are dropped per endpoint anyway). */
const STRUCTURAL = new Set([
  'tools',
  'tool_choice',
  'response_format',
  'structured_outputs',
  'reasoning',
  'logprobs',
  'top_logprobs',
  'n',
  'prediction',
  'audio',
  'modalities',
]);

export interface AutoRouterChoice {
  model: string;
  candidates: number;
  rule: string;
}

/**
 * The auto-router's rule: the candidates are the catalog's listed chat models the
 * gateway can call, within `allowed_models` (wildcards) and outside `excluded_models`, whose
 * context window holds the estimated prompt plus the output budget, which take the request's
 * structural parameters (tools, response_format, reasoning, ...) and read its input kinds
 * (images, files). They are ranked by price (prompt + completion per token of their cheapest
 * endpoint, then id). Without a cost setting the cheapest wins; with `cost_tier` (or the
 * deprecated `cost_quality_tradeoff`) the most expensive candidate inside that price
 * percentile band wins (price standing in for capability), else the nearest cheaper one.
 * `pin_model` keeps the model of the last assistant message when it is still a candidate.
 */
export function chooseModel(
  body: Json,
  config: AutoRouterConfig,
  models: readonly RoutableModel[],
  options: { filesAsText: boolean },
): AutoRouterChoice {
  const messages = (body.messages as Json[] | undefined) ?? [];
  const budget =
    typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : typeof body.max_tokens === 'number' ? body.max_tokens : 0;
  const needed = estimatePromptTokens(messages) + budget;
  const parameters = requestedParameters(body).filter((parameter) => STRUCTURAL.has(parameter));
  const inputs = inputKinds(messages, options.filesAsText);
  const priced = models
    .filter((model) => model.config.listed !== false && !servesEmbeddings(model) && !AUTO_MODELS.has(model.config.id))
    .filter((model) => !config.allowedModels || config.allowedModels.some((pattern) => matchesPattern(model.config.id, pattern)))
    .filter((model) => !(config.excludedModels ?? []).some((pattern) => matchesPattern(model.config.id, pattern)))
    .filter((model) => model.config.contextLength >= needed)
    .filter((model) => inputs.every((kind) => (model.config.inputModalities ?? ['text']).includes(kind)))
    .map((model) => ({
      model,
      endpoints: model.endpoints.filter(
        (endpoint) => gatewayHoldsKey(endpoint) && parameters.every((parameter) => supports(endpoint, parameter)),
      ),
    }))
    .filter(({ endpoints }) => endpoints.length > 0)
    .map(({ model, endpoints }) => ({
      id: model.config.id,
      price: Math.min(...endpoints.map((endpoint) => endpoint.pricing.prompt.add(endpoint.pricing.completion).toNumber())),
    }))
    .sort((a, b) => a.price - b.price || a.id.localeCompare(b.id));
  if (priced.length === 0) {
    throw GatewayError.badRequest(
      `auto-router found no model for this request: none of the catalog's chat models within allowed_models/excluded_models fits ${needed} estimated tokens${parameters.length ? `, takes ${parameters.join(', ')}` : ''}${inputs.length > 1 ? ` and reads ${inputs.join(', ')}` : ''}`,
      { reason: 'no_auto_router_candidate', plugin: 'auto-router' },
    );
  }
  if (config.pinModel) {
    const pinned = [...messages].reverse().find((message) => message.role === 'assistant' && typeof message.model === 'string')?.model as
      string | undefined;
    if (pinned && priced.some((candidate) => candidate.id === pinned))
      return { model: pinned, candidates: priced.length, rule: 'pin_model' };
  }
  if (!config.band) return { model: priced[0]!.id, candidates: priced.length, rule: 'cheapest' };
  const [from, to] = config.band;
  // Rank r (0-based) of n sits at percentile 100 * r / n.
  const inBand = priced.filter((_, rank) => (100 * rank) / priced.length < to);
  const chosen = inBand.filter((_, rank) => (100 * rank) / priced.length >= from).at(-1) ?? inBand.at(-1) ?? priced[0]!;
  return { model: chosen.id, candidates: priced.length, rule: `cost band [${from}, ${to})` };
}

function inputKinds(messages: readonly Json[], filesAsText: boolean): string[] {
  const kinds = new Set(['text']);
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content as Json[]) {
      if (part.type === 'image_url') kinds.add('image');
      if (part.type === 'file' && !filesAsText) kinds.add('file');
      if (part.type === 'input_audio') kinds.add('audio');
    }
  }
  return [...kinds];
}
