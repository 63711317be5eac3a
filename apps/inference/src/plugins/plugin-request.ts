import { GatewayError } from '@gw/errors';
import { parseAlignment, type AlignmentConfig } from './alignment.plugin.js';
import { parseAutoRouter, type AutoRouterConfig } from './auto-router.plugin.js';
import { parseContextCompression, type ContextCompressionConfig } from './context-compression.plugin.js';
import { parseFileParser, type FileParserConfig } from './file-parser.plugin.js';
import { parseModeration } from './moderation.plugin.js';
import { BUILT_PLUGINS, PLUGIN_REGISTRY } from './plugin-registry.js';
import { parseResponseHealing, type ResponseHealingConfig } from './response-healing.plugin.js';
import { parseStripCitationMarkers } from './strip-citation-markers.plugin.js';
import { parseWebFetch, type WebFetchConfig } from './web-fetch.plugin.js';
import { parseWeb, type WebConfig } from './web.plugin.js';

type Json = Record<string, unknown>;

/** The plugins a request turned on, each with its checked options. */
export interface PluginPlan {
  autoRouter?: AutoRouterConfig;
  moderation?: true;
  fileParser?: FileParserConfig;
  webFetch?: WebFetchConfig;
  web?: WebConfig;
  contextCompression?: ContextCompressionConfig;
  responseHealing?: ResponseHealingConfig;
  stripCitationMarkers?: true;
  alignment?: AlignmentConfig;
}

export interface PluginParseContext {
  stream: boolean;
  /** The configured search backend's name: the web plugin's only engine. */
  searchBackend: string;
}

/**
 * `plugins` of a request body (chat completions, or a Responses body already in the internal
 * form; a preset's plugins are merged in before): each must be an object with a known `id`,
 * at most once; `enabled: false` turns one off (the SDK's documented switch). Unknown ids,
 * plugins not built here, options a plugin does not take and plugins that cannot run on a
 * stream are each a 400 that names them.
 */
export function parsePlugins(body: Json, context: PluginParseContext): PluginPlan {
  const plugins = body.plugins;
  const plan: PluginPlan = {};
  if (plugins === undefined || plugins === null) return plan;
  if (!Array.isArray(plugins))
    throw GatewayError.badRequest('plugins must be an array of plugin objects, each with an id', { reason: 'invalid_plugins' });
  const seen = new Set<string>();
  for (const [index, raw] of (plugins as unknown[]).entries()) {
    const where = `plugins[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || typeof (raw as Json).id !== 'string') {
      throw GatewayError.badRequest(`${where} must be an object with a string id`, { reason: 'invalid_plugins' });
    }
    const plugin = raw as Json;
    const id = plugin.id as string;
    const entry = PLUGIN_REGISTRY[id];
    if (!entry) {
      throw GatewayError.badRequest(`${where}: unknown plugin "${id}"; the plugins served here are ${BUILT_PLUGINS.join(', ')}`, {
        reason: 'unknown_plugin',
        plugin: id,
        param: `${where}.id`,
      });
    }
    if (!entry.built)
      throw GatewayError.badRequest(`${where}: the ${id} plugin is not supported here: ${entry.why}`, {
        reason: 'unsupported_plugin',
        plugin: id,
        param: `${where}.id`,
      });
    if (seen.has(id))
      throw GatewayError.badRequest(`${where}: the ${id} plugin is named twice; name each plugin once`, {
        reason: 'invalid_plugins',
        plugin: id,
      });
    seen.add(id);
    if (plugin.enabled !== undefined && plugin.enabled !== null && typeof plugin.enabled !== 'boolean') {
      throw GatewayError.badRequest(`${where}.enabled must be true or false`, {
        reason: 'invalid_plugin_option',
        plugin: id,
        param: `${where}.enabled`,
      });
    }
    if (plugin.enabled === false) continue;
    switch (id) {
      case 'auto-router':
        plan.autoRouter = parseAutoRouter(plugin, where);
        break;
      case 'moderation':
        plan.moderation = parseModeration(plugin, where);
        break;
      case 'file-parser':
        plan.fileParser = parseFileParser(plugin, where);
        break;
      case 'web-fetch':
        plan.webFetch = parseWebFetch(plugin, where);
        break;
      case 'web':
        plan.web = parseWeb(plugin, where, context.searchBackend);
        break;
      case 'context-compression':
        plan.contextCompression = parseContextCompression(plugin, where);
        break;
      case 'response-healing':
        plan.responseHealing = parseResponseHealing(plugin, where, body, context.stream);
        break;
      case 'strip-citation-markers':
        plan.stripCitationMarkers = parseStripCitationMarkers(plugin, where);
        break;
      case 'alignment':
        plan.alignment = parseAlignment(plugin, where, context.stream);
        break;
      default:
        // A registry entry marked built without a parser here is a programming error, not the client's.
        throw new Error(`plugin ${id} is registered as built but has no parser`);
    }
  }
  return plan;
}

/** True when the request turned any plugin on. */
export function hasPlugins(plan: PluginPlan): boolean {
  return Object.keys(plan).length > 0;
}

/**
 * `/v1/messages` relays Anthropic-format bodies natively, so the prompt plugins cannot rewrite
 * them: a request there that names plugins is a 400 (an unknown id is named as unknown first,
 * as on the other front doors). `enabled: false` plugins are off and pass.
 */
export function refusePluginsOnMessages(body: Json): void {
  const plugins = body.plugins;
  if (plugins === undefined || plugins === null) return;
  if (!Array.isArray(plugins))
    throw GatewayError.badRequest('plugins must be an array of plugin objects, each with an id', { reason: 'invalid_plugins' });
  const ids: string[] = [];
  for (const [index, plugin] of (plugins as Json[]).entries()) {
    const id = typeof plugin?.id === 'string' ? plugin.id : '';
    if (!PLUGIN_REGISTRY[id])
      throw GatewayError.badRequest(`plugins[${index}]: unknown plugin "${id}"`, {
        reason: 'unknown_plugin',
        plugin: id,
        param: `plugins[${index}].id`,
      });
    if (plugin.enabled !== false) ids.push(id);
  }
  if (ids.length === 0) return;
  throw GatewayError.badRequest(
    `plugins are not supported on /v1/messages (${ids.join(', ')}): use /v1/chat/completions or /v1/responses, or leave plugins out`,
    {
      reason: 'unsupported_plugin',
      plugins: ids.join(', '),
    },
  );
}
