import type { CitableSource } from '../server-tools/citations.js';
import type { FetchedPage } from '../server-tools/web-fetch.js';
import { lastUserIndex, matchesDomain, textOf, withContextBefore } from './conversation-text.js';
import { PluginOptions } from './plugin-options.js';

type Json = Record<string, unknown>;

export interface WebFetchConfig {
  allowedDomains?: string[];
  blockedDomains?: string[];
  /** Approximate tokens of each page kept (4 characters a token). */
  maxContentTokens?: number;
  maxUses: number;
}

/** `web-fetch` (SDK WebFetchPlugin): `allowed_domains`, `blocked_domains`, `max_content_tokens`, `max_uses` (default 5, at most 10). */
export function parseWebFetch(raw: Json, where: string): WebFetchConfig {
  const options = new PluginOptions(raw, where, 'web-fetch', ['allowed_domains', 'blocked_domains', 'max_content_tokens', 'max_uses']);
  const maxContentTokens = options.integer('max_content_tokens', 1, 1_000_000);
  return {
    ...(options.has('allowed_domains') ? { allowedDomains: options.strings('allowed_domains') } : {}),
    ...(options.has('blocked_domains') ? { blockedDomains: options.strings('blocked_domains') } : {}),
    ...(maxContentTokens ? { maxContentTokens } : {}),
    maxUses: options.integer('max_uses', 1, 10) ?? 5,
  };
}

/** http(s) URLs named in the last user message, in order, without duplicates (trailing punctuation is not part of them). */
export function urlsToFetch(messages: readonly Json[]): string[] {
  const at = lastUserIndex(messages);
  if (at < 0) return [];
  const found = textOf(messages[at]!.content).match(/https?:\/\/[^\s<>"'`)\]]+/g) ?? [];
  return [...new Set(found.map((url) => url.replace(/[.,;:!?]+$/, '')))];
}

export type FetchOutcome = { url: string; page: FetchedPage } | { url: string; error: string };

/** Which URLs the domain rules let through (the others are reported as refused, not fetched). */
export function domainVerdict(url: string, config: WebFetchConfig): string | undefined {
  if (config.allowedDomains && !config.allowedDomains.some((pattern) => matchesDomain(url, pattern)))
    return 'its domain is not in allowed_domains';
  if ((config.blockedDomains ?? []).some((pattern) => matchesDomain(url, pattern))) return 'its domain is in blocked_domains';
  return undefined;
}

/** The conversation with the pages (or why each could not be fetched) as a system message before the last user message. */
export function withFetchedPages(
  messages: readonly Json[],
  outcomes: readonly FetchOutcome[],
  config: WebFetchConfig,
): { messages: Json[]; sources: CitableSource[] } {
  const maxChars = config.maxContentTokens ? config.maxContentTokens * 4 : undefined;
  const sections = outcomes.map((outcome) => {
    if ('error' in outcome) return `[${outcome.url}](${outcome.url})\n(could not be fetched: ${outcome.error})`;
    const { page } = outcome;
    const text = maxChars !== undefined && page.text.length > maxChars ? `${page.text.slice(0, maxChars)}...` : page.text;
    return `[${page.title ?? page.url}](${page.url})\n${text}`;
  });
  const content =
    "The user's message names these web pages; they were fetched for you. Use their content in your response.\n\n" +
    'IMPORTANT: Cite them using markdown links.\n\n' +
    sections.join('\n\n---\n\n');
  // The model may cite the page as the user named it or where redirects ended.
  const sources = outcomes.flatMap((outcome): CitableSource[] =>
    'page' in outcome
      ? [...new Set([outcome.page.url, outcome.url])].map((url) => ({ url, title: outcome.page.title ?? outcome.page.url }))
      : [],
  );
  return { messages: withContextBefore(messages, content), sources };
}
