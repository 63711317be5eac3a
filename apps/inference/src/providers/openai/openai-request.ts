import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { withoutUnsupported } from '../../routing/parameter-support.js';
import { ROUTING_FIELDS } from '../../routing/provider-preferences.js';
import { tierFor, wireTier } from '../../routing/service-tier.js';
import { customToolNames, grammarToolRefused, withCustomCalls } from '../custom-tool-calls.js';
import { toolMediaAsUserTurns } from '../tool-result-media.js';

/**
 * The top-level arguments OpenAI's chat completions take. OpenAI answers 400 "Unrecognized
 * request argument" for any other, so nothing else goes out unless the endpoint's catalog
 * entry lists it (an OpenAI-compatible host that takes top_k, min_p, ...).
 */
const OPENAI_CHAT_ARGUMENTS = new Set([
  'model',
  'messages',
  'audio',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'modalities',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
]);

/**
 * Gateway-level fields that steer routing, billing or gateway features and mean nothing (or
 * something else) to a provider: never forwarded, even to a host whose catalog lists them.
 */
const GATEWAY_ONLY_FIELDS = new Set([
  ...ROUTING_FIELDS,
  'preset',
  'plugins',
  'debug',
  'transforms',
  'usage',
  'stream',
  'stream_options',
  'trace',
  'metadata',
  'image_config',
  'prompt_cache_options',
  'cache_control',
  'cache',
  'stop_server_tools_when',
  'max_tool_calls',
  'reasoning',
  'include_reasoning',
]);

/**
 * The body sent to an OpenAI-compatible endpoint: OpenAI's own arguments (and those the
 * catalog lists for this endpoint), without the parameters the endpoint does not support,
 * re-targeted to the upstream model, with the end user only as its hash, the gateway's
 * `reasoning` object as OpenAI's `reasoning_effort`, tool results' media in a user turn and
 * custom tools' calls in chat's custom spelling.
 */
export function buildOpenAiChatBody(
  body: Record<string, unknown>,
  endpoint: RoutableEndpoint,
  endUserHash?: string,
  sessionCacheKey?: string,
): Record<string, unknown> {
  const supported = withoutUnsupported(body, endpoint);
  const upstream: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(supported)) {
    if (GATEWAY_ONLY_FIELDS.has(field)) continue;
    if (OPENAI_CHAT_ARGUMENTS.has(field) || endpoint.supportedParameters.has(field)) upstream[field] = value;
  }
  upstream.model = endpoint.upstreamModel;
  renameMaxTokens(upstream, endpoint);
  upstream.messages = toolMediaAsUserTurns(upstream.messages);
  const customTools = customToolNames(upstream.tools);
  if (customTools.size > 0) {
    // Grammar tools are OpenAI's (its own API and Azure's); a compatible host would refuse them or drop the grammar.
    const host = endpoint.provider.host;
    if (host !== undefined && host !== 'openai') throw grammarToolRefused(`the provider ${endpoint.provider.name}`, upstream.tools);
    upstream.messages = withCustomCalls(upstream.messages, customTools);
  }
  if (typeof upstream.service_tier === 'string') {
    // `fast` and `ultrafast` are the spec's words, not OpenAI's: each endpoint gets the best tier it takes.
    const tier = tierFor(endpoint, upstream.service_tier);
    if (tier === undefined) delete upstream.service_tier;
    else upstream.service_tier = wireTier(endpoint.provider.format, tier);
  }
  const effort = reasoningEffortOf(supported);
  if (effort !== undefined && upstream.reasoning_effort === undefined) upstream.reasoning_effort = effort;
  if ('user' in upstream) {
    if (endUserHash) upstream.user = endUserHash;
    else delete upstream.user;
  }
  // Spec §4.5: the session id is the cache affinity key where the host takes one (never raw).
  if (upstream.prompt_cache_key === undefined && sessionCacheKey && endpoint.supportedParameters.has('prompt_cache_key'))
    upstream.prompt_cache_key = sessionCacheKey;
  return upstream;
}

/**
 * OpenAI deprecated `max_tokens` for `max_completion_tokens`, and its reasoning models refuse
 * the old name (400 "Use 'max_completion_tokens' instead"). The request's value goes out under
 * the name the endpoint takes: `max_completion_tokens` unless its catalog entry lists only
 * `max_tokens` (older OpenAI-compatible hosts). When both are sent, the newer one wins.
 */
function renameMaxTokens(upstream: Record<string, unknown>, endpoint: RoutableEndpoint): void {
  const legacyOnly = endpoint.supportedParameters.has('max_tokens') && !endpoint.supportedParameters.has('max_completion_tokens');
  const value = upstream.max_completion_tokens ?? upstream.max_tokens;
  delete upstream.max_tokens;
  delete upstream.max_completion_tokens;
  if (value === undefined || value === null) return;
  upstream[legacyOnly ? 'max_tokens' : 'max_completion_tokens'] = value;
}

/** `reasoning.effort` (the gateway's reasoning object) as OpenAI's `reasoning_effort`; `enabled: false` as `none`. */
function reasoningEffortOf(body: Record<string, unknown>): string | undefined {
  const reasoning = body.reasoning;
  if (reasoning === null || typeof reasoning !== 'object' || Array.isArray(reasoning)) return undefined;
  const { effort, enabled } = reasoning as { effort?: unknown; enabled?: unknown };
  if (typeof effort === 'string') return effort;
  if (enabled === false) return 'none';
  return undefined;
}

/**
 * The streamed variant: `stream: true`, and usage always asked for (the gateway prices every
 * generation, whether or not the client wants the usage chunk). The client's other
 * `stream_options` pass through.
 */
export function buildOpenAiStreamBody(
  body: Record<string, unknown>,
  endpoint: RoutableEndpoint,
  endUserHash?: string,
  sessionCacheKey?: string,
): Record<string, unknown> {
  const upstream = buildOpenAiChatBody(body, endpoint, endUserHash, sessionCacheKey);
  const clientOptions = body.stream_options !== null && typeof body.stream_options === 'object' ? body.stream_options : {};
  upstream.stream = true;
  upstream.stream_options = { ...clientOptions, include_usage: true };
  return upstream;
}
