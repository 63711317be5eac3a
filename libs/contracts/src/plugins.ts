/**
 * Plugin ids (spec §4.5/§4.6: "plugins, 13 kinds"; `@openrouter/sdk` adds switchyard-router):
 * the ones this gateway runs, and the ones it refuses with the reason. The gateway
 * checks ids at the edge (chat, Responses, preset bodies); inference checks options and runs them.
 */
export const BUILT_PLUGIN_IDS = [
  'auto-router',
  'moderation',
  'file-parser',
  'web-fetch',
  'web',
  'context-compression',
  'response-healing',
  'strip-citation-markers',
  'alignment',
] as const;

export type BuiltPluginId = (typeof BUILT_PLUGIN_IDS)[number];

export const REFUSED_PLUGINS: Readonly<Record<string, string>> = {
  fusion:
    "fusion runs a panel of expert models and an analyst over them (OpenRouter's `openrouter/fusion`); no panel or analyst is configured here",
  'pareto-router':
    'pareto-router ranks models by coding-benchmark scores, which the catalog does not carry; use auto-router (price-based) instead',
  phaser: 'phaser has no public definition this gateway could implement faithfully',
  'auto-beta-router':
    'auto-beta-router classifies the task and ranks models by community spend share, data this gateway does not have; use auto-router instead',
  'switchyard-router': "switchyard-router rates tasks with OpenRouter's own judge and candidate sets; use auto-router instead",
};

const built = new Set<string>(BUILT_PLUGIN_IDS);

/** Why a `plugins[index]` id cannot be served (unknown, or refused here), or undefined when it can. */
export function pluginIdProblem(
  id: string,
  index: number,
): { reason: 'unknown_plugin' | 'unsupported_plugin'; message: string } | undefined {
  if (built.has(id)) return undefined;
  const refused = REFUSED_PLUGINS[id];
  if (refused !== undefined)
    return { reason: 'unsupported_plugin', message: `plugins[${index}]: the ${id} plugin is not supported here: ${refused}` };
  return {
    reason: 'unknown_plugin',
    message: `plugins[${index}]: unknown plugin "${id}"; the plugins served here are ${BUILT_PLUGIN_IDS.join(', ')}`,
  };
}
