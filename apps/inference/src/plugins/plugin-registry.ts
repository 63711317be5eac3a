import { REFUSED_PLUGINS } from '@gw/contracts';

/**
 * Every plugin id a request may name (spec §4.5/§4.6: 13 kinds; the `@openrouter/sdk` models
 * add `switchyard-router`), and for each whether it is built here, where it runs
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
  // Refused, each with its reason (shared with the gateway's edge check, @gw/contracts plugins.ts).
  ...Object.fromEntries(Object.entries(REFUSED_PLUGINS).map(([id, why]) => [id, { built: false as const, why }])),
};

export const BUILT_PLUGINS = Object.entries(PLUGIN_REGISTRY)
  .filter(([, entry]) => entry.built)
  .map(([id]) => id);
