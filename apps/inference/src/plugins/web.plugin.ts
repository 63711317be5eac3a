import { GatewayError } from '@gw/errors';
import type { CitableSource } from '../server-tools/citations.js';
import type { WebSearchResult } from '../server-tools/search-backends.js';
import { lastUserIndex, matchesDomain, textOf, withContextBefore } from './conversation-text.js';
import { PluginOptions } from './plugin-options.js';

type Json = Record<string, unknown>;

export interface WebConfig {
  maxResults: number;
  searchPrompt?: string;
  includeDomains?: string[];
  excludeDomains?: string[];
}

/**
 * `web` (SDK WebSearchPlugin): `max_results` (1-20, default 5), `search_prompt`, `engine` (only
 * the configured backend's name: `searxng` or `brave`), `include_domains` / `exclude_domains`,
 * `max_uses` (at least 1: the plugin searches once). `mode`, `user_location` and `x_search`
 * steer engines this gateway does not have: a 400, not ignored.
 */
export function parseWeb(raw: Json, where: string, backendName: string): WebConfig {
  const options = new PluginOptions(raw, where, 'web', [
    'max_results',
    'search_prompt',
    'engine',
    'include_domains',
    'exclude_domains',
    'max_uses',
    'mode',
    'user_location',
    'x_search',
  ]);
  const engine = options.string('engine');
  if (engine !== undefined && engine !== backendName) {
    throw GatewayError.badRequest(
      `${where}.engine "${engine}" is not available here: this gateway searches with ${backendName} (leave engine out, or set it to "${backendName}")`,
      {
        reason: 'unsupported_plugin_option',
        plugin: 'web',
        param: `${where}.engine`,
      },
    );
  }
  options.refuse('mode', `the ${backendName} backend has no search modes`);
  options.refuse('user_location', 'location-biased search needs a provider-native search, which is not used here');
  options.refuse('x_search', 'X search is a SpaceXAI-native feature');
  options.integer('max_uses', 1, 100);
  const searchPrompt = options.string('search_prompt', { maxLength: 10_000 });
  return {
    maxResults: options.integer('max_results', 1, 20) ?? 5,
    ...(searchPrompt ? { searchPrompt } : {}),
    ...(options.has('include_domains') ? { includeDomains: options.strings('include_domains') } : {}),
    ...(options.has('exclude_domains') ? { excludeDomains: options.strings('exclude_domains') } : {}),
  };
}

/** The query: the last user message's text (at most 400 characters). */
export function searchQueryOf(messages: readonly Json[]): string {
  const at = lastUserIndex(messages);
  return at < 0 ? '' : textOf(messages[at]!.content).replace(/\s+/g, ' ').trim().slice(0, 400);
}

/** OpenRouter's default prompt for the web plugin's results. */
function defaultSearchPrompt(now = new Date()): string {
  return (
    `A web search was conducted on ${now.toISOString().slice(0, 10)}. Incorporate the following web search results into your response.\n\n` +
    'IMPORTANT: Cite them using markdown links named using the domain of the source.\nExample: [nytimes.com](https://nytimes.com/some-page).'
  );
}

/** The results the domain filters keep. */
export function filterResults(results: readonly WebSearchResult[], config: WebConfig): WebSearchResult[] {
  return results
    .filter((result) => !config.includeDomains || config.includeDomains.some((pattern) => matchesDomain(result.url, pattern)))
    .filter((result) => !(config.excludeDomains ?? []).some((pattern) => matchesDomain(result.url, pattern)));
}

/** The conversation with the results as a system message before the last user message; the sources the answer may cite. */
export function withSearchResults(
  messages: readonly Json[],
  results: readonly WebSearchResult[],
  config: WebConfig,
): { messages: Json[]; sources: CitableSource[] } {
  const listed = results.map((result, index) => `${index + 1}. [${result.title}](${result.url})\n${result.snippet}`).join('\n\n');
  const content = `${config.searchPrompt ?? defaultSearchPrompt()}\n\n${listed || '(the search found nothing)'}`;
  return {
    messages: withContextBefore(messages, content),
    sources: results.map((result) => ({ url: result.url, title: result.title, snippet: result.snippet })),
  };
}
