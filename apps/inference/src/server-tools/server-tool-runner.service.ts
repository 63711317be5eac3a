import { Inject, Injectable } from '@nestjs/common';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import type { CitableSource } from './citations.js';
import { BraveBackend, SearxngBackend, type SearchBackend, type WebSearchResult } from './search-backends.js';
import type { ServerToolKind, ServerToolPlan } from './server-tool-request.js';
import { WebFetcher, type FetchedPage } from './web-fetch.js';

/** One server tool call the gateway ran for the model. */
export interface ExecutedCall {
  callId: string;
  /** The function name the model called. */
  name: string;
  kind: ServerToolKind;
  ok: boolean;
  query?: string;
  url?: string;
  results?: WebSearchResult[];
  page?: FetchedPage;
  error?: string;
  /** The tool message's content handed back to the model (JSON). */
  content: string;
}

/**
 * Runs `service:web_search` on the configured backend (SEARCH_BACKEND: SearXNG or Brave) and
 * `service:web_fetch` through the SSRF-guarded WebFetcher, and prices them from
 * configuration. A tool that fails (bad arguments, backend down, a refused URL) is not a
 * failed request: the model is told the error as the tool's result and carries on.
 */
@Injectable()
export class ServerToolRunner {
  private readonly backend: SearchBackend;
  private readonly fetcher: WebFetcher;
  private readonly searchPrice: Prisma.Decimal;
  private readonly fetchPrice: Prisma.Decimal;
  private readonly maxResults: number;

  constructor(@Inject(INFERENCE_ENV) env: InferenceEnv) {
    this.backend =
      env.SEARCH_BACKEND === 'brave'
        ? new BraveBackend(env.BRAVE_SEARCH_API_KEY, env.BRAVE_SEARCH_URL)
        : new SearxngBackend(env.SEARXNG_URL);
    this.fetcher = new WebFetcher({
      allowedOrigins: env.WEB_FETCH_ALLOWED_ORIGINS.split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
      maxBytes: env.WEB_FETCH_MAX_BYTES,
      timeoutMs: env.WEB_FETCH_TIMEOUT_MS,
      maxRedirects: env.WEB_FETCH_MAX_REDIRECTS,
      maxChars: env.WEB_FETCH_MAX_CHARS,
    });
    this.searchPrice = new Prisma.Decimal(env.WEB_SEARCH_PRICE);
    this.fetchPrice = new Prisma.Decimal(env.WEB_FETCH_PRICE);
    this.maxResults = env.WEB_SEARCH_MAX_RESULTS;
  }

  async run(call: { id: string; name: string; arguments: string }, tool: ServerToolPlan, signal?: AbortSignal): Promise<ExecutedCall> {
    const base = { callId: call.id, name: call.name, kind: tool.kind };
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
    } catch {
      return failed(base, 'the arguments are not valid JSON');
    }
    if (tool.kind === 'web_search') {
      const query = typeof args.query === 'string' ? args.query.trim() : '';
      if (!query) return failed(base, 'web_search needs a non-empty query');
      try {
        const results = await this.backend.search(query, tool.maxResults ?? this.maxResults, signal, tool.search);
        return { ...base, ok: true, query, results, content: JSON.stringify({ query, results }) };
      } catch (error) {
        return { ...failed(base, `the search failed: ${(error as Error).message}`), query };
      }
    }
    const url = typeof args.url === 'string' ? args.url.trim() : '';
    if (!url) return failed(base, 'web_fetch needs a url');
    try {
      const page = await this.fetcher.fetch(url, signal);
      return {
        ...base,
        ok: true,
        url,
        page,
        content: JSON.stringify({ url: page.url, title: page.title, text: page.text, truncated: page.truncated }),
      };
    } catch (error) {
      return { ...failed(base, `the fetch was refused or failed: ${(error as Error).message}`), url };
    }
  }

  /** The configured search backend's name (`searxng`, `brave`): the web plugin's only `engine`. */
  get backendName(): string {
    return this.backend.name;
  }

  /** One search on the configured backend (the web plugin's; failures throw). */
  search(query: string, count: number, signal?: AbortSignal): Promise<WebSearchResult[]> {
    return this.backend.search(query, count, signal);
  }

  /** One SSRF-guarded fetch (the web-fetch and file-parser plugins'; failures throw WebFetchError). */
  fetchPage(url: string, signal?: AbortSignal): Promise<FetchedPage> {
    return this.fetcher.fetch(url, signal);
  }

  /** Configured prices: a search, a fetch. */
  get prices(): { search: Prisma.Decimal; fetch: Prisma.Decimal } {
    return { search: this.searchPrice, fetch: this.fetchPrice };
  }

  /** What the calls cost (configuration: WEB_SEARCH_PRICE a search, WEB_FETCH_PRICE a fetch), failed calls are free. */
  costOf(calls: readonly ExecutedCall[]): Prisma.Decimal {
    return calls
      .filter((call) => call.ok)
      .reduce((total, call) => total.add(call.kind === 'web_search' ? this.searchPrice : this.fetchPrice), new Prisma.Decimal(0));
  }
}

function failed(base: Pick<ExecutedCall, 'callId' | 'name' | 'kind'>, error: string): ExecutedCall {
  return { ...base, ok: false, error, content: JSON.stringify({ error }) };
}

/** The pages a model could cite after these calls: search results and fetched pages. */
export function sourcesOf(calls: readonly ExecutedCall[]): CitableSource[] {
  return calls.flatMap((call): CitableSource[] => {
    if (call.results) return call.results.map((result) => ({ url: result.url, title: result.title, snippet: result.snippet }));
    if (call.page) return [{ url: call.page.url, title: call.page.title ?? call.page.url }];
    return [];
  });
}
