/**
 * Every plugin id a request may name (spec §4.5/§4.6: 13 kinds; the `@openrouter/sdk` models
 * add `switchyard-router`), and for each whether it is built here, where it runs (ADR 0048)
 * and, for the ones that are not, why. An id missing here is unknown: 400 `unknown_plugin`.
 * A refused one is 400 `unsupported_plugin` with its reason, never silently dropped.
 */
export type PluginStage = 'route' | 'prompt' | 'answer';

export type PluginEntry =
  | {
      built: true;
      /** route: chooses the model before routing; prompt: rewrites the request after routing; answer: rewrites or judges the answer. */
      stages: readonly PluginStage[];
      /** How it behaves on `stream: true` (README / ADR); `refused` plugins are a 400 on streams. */
      streams: 'yes' | 'input-only' | 'refused';
      file: string;
    }
  | { built: false; why: string };

export const PLUGIN_REGISTRY: Readonly<Record<string, PluginEntry>> = {
  'auto-router': { built: true, stages: ['route'], streams: 'yes', file: 'auto-router.plugin.ts' },
  moderation: { built: true, stages: ['prompt', 'answer'], streams: 'input-only', file: 'moderation.plugin.ts' },
  'file-parser': { built: true, stages: ['prompt'], streams: 'yes', file: 'file-parser.plugin.ts' },
  'web-fetch': { built: true, stages: ['prompt', 'answer'], streams: 'yes', file: 'web-fetch.plugin.ts' },
  web: { built: true, stages: ['prompt', 'answer'], streams: 'yes', file: 'web.plugin.ts' },
  'context-compression': { built: true, stages: ['prompt'], streams: 'yes', file: 'context-compression.plugin.ts' },
  'response-healing': { built: true, stages: ['answer'], streams: 'refused', file: 'response-healing.plugin.ts' },
  'strip-citation-markers': { built: true, stages: ['answer'], streams: 'yes', file: 'strip-citation-markers.plugin.ts' },
  alignment: { built: true, stages: ['prompt', 'answer'], streams: 'refused', file: 'alignment.plugin.ts' },
  fusion: {
    built: false,
    why: 'fusion runs a panel of expert models and an analyst over them (OpenRouter\'s `openrouter/fusion`); no panel or analyst is configured here',
  },
  'pareto-router': {
    built: false,
    why: 'pareto-router ranks models by coding-benchmark scores, which the catalog does not carry; use auto-router (price-based) instead',
  },
  phaser: { built: false, why: 'phaser has no public definition this gateway could implement faithfully' },
  'auto-beta-router': {
    built: false,
    why: 'auto-beta-router classifies the task and ranks models by community spend share, data this gateway does not have; use auto-router instead',
  },
  'switchyard-router': {
    built: false,
    why: 'switchyard-router rates tasks with OpenRouter\'s own judge and candidate sets; use auto-router instead',
  },
};

export const BUILT_PLUGINS = Object.entries(PLUGIN_REGISTRY)
  .filter(([, entry]) => entry.built)
  .map(([id]) => id);
