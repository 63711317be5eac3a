/** One ranked web search result, whatever the backend. */
export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** Where the user roughly is (OpenAI's `user_location`), for engines that localise results. */
export interface SearchLocation {
  /** ISO 3166-1 alpha-2. */
  country?: string;
  region?: string;
  city?: string;
  /** IANA, e.g. Europe/London. */
  timezone?: string;
}

export interface SearchOptions {
  /** Results only on these host names or their subdomains (OpenAI's `filters.allowed_domains`). */
  allowedDomains?: readonly string[];
  location?: SearchLocation;
}

/** What `service:web_search` runs on, chosen by SEARCH_BACKEND. */
export interface SearchBackend {
  readonly name: string;
  search(query: string, count: number, signal?: AbortSignal, options?: SearchOptions): Promise<WebSearchResult[]>;
}

/** The query with `site:` operators: the syntax SearXNG passes on to its engines and Brave reads. */
function scopedQuery(query: string, domains?: readonly string[]): string {
  if (!domains || domains.length === 0) return query;
  return `${query} ${domains.map((domain) => `site:${domain}`).join(' OR ')}`;
}

/** An engine that ignores `site:` cannot widen the answer: a result off the allowed domains is dropped. */
function onAllowedDomain(url: string, domains?: readonly string[]): boolean {
  if (!domains || domains.length === 0) return true;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

export class SearchBackendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchBackendError';
  }
}

const SEARCH_TIMEOUT_MS = 10_000;

async function getJson(url: URL, headers: Record<string, string>, backend: string, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json', ...headers },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    throw new SearchBackendError(`${backend} could not be reached: ${(error as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new SearchBackendError(`${backend} answered HTTP ${response.status}`);
  }
  return response.json();
}

/**
 * SearXNG's JSON API (`GET {base}/search?q=…&format=json`), self-hosted; the JSON format must be
 * enabled in its settings. It has no location parameter: `options.location` is not used.
 */
export class SearxngBackend implements SearchBackend {
  readonly name = 'searxng';
  constructor(private readonly baseUrl: string) {}

  async search(query: string, count: number, signal?: AbortSignal, options: SearchOptions = {}): Promise<WebSearchResult[]> {
    const url = new URL('search', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    url.searchParams.set('q', scopedQuery(query, options.allowedDomains));
    url.searchParams.set('format', 'json');
    const body = (await getJson(url, {}, 'SearXNG', signal)) as {
      results?: Array<{ url?: unknown; title?: unknown; content?: unknown; score?: unknown }>;
    };
    return (body.results ?? [])
      .filter((result) => typeof result.url === 'string' && onAllowedDomain(result.url, options.allowedDomains))
      .slice(0, count)
      .map((result) => ({
        url: String(result.url),
        title: typeof result.title === 'string' ? result.title : String(result.url),
        snippet: typeof result.content === 'string' ? result.content : '',
      }));
  }
}

/**
 * Brave Search's web search API (`X-Subscription-Token`): the location as its `country`
 * parameter and `X-Loc-*` headers (ASCII values only: they are HTTP headers).
 */
export class BraveBackend implements SearchBackend {
  readonly name = 'brave';
  constructor(
    private readonly apiKey: string,
    private readonly endpoint = 'https://api.search.brave.com/res/v1/web/search',
  ) {}

  async search(query: string, count: number, signal?: AbortSignal, options: SearchOptions = {}): Promise<WebSearchResult[]> {
    const url = new URL(this.endpoint);
    url.searchParams.set('q', scopedQuery(query, options.allowedDomains));
    url.searchParams.set('count', String(Math.min(count, 20)));
    const location = options.location ?? {};
    if (location.country) url.searchParams.set('country', location.country.toUpperCase());
    const headers: Record<string, string> = { 'x-subscription-token': this.apiKey };
    for (const [header, value] of [
      ['x-loc-country', location.country?.toUpperCase()],
      ['x-loc-state-name', location.region],
      ['x-loc-city', location.city],
      ['x-loc-timezone', location.timezone],
    ] as const)
      if (value && /^[\x20-\x7e]+$/.test(value)) headers[header] = value;
    const body = (await getJson(url, headers, 'Brave Search', signal)) as {
      web?: { results?: Array<{ url?: unknown; title?: unknown; description?: unknown }> };
    };
    return (body.web?.results ?? [])
      .filter((result) => typeof result.url === 'string' && onAllowedDomain(result.url, options.allowedDomains))
      .slice(0, count)
      .map((result) => ({
        url: String(result.url),
        title: typeof result.title === 'string' ? result.title : String(result.url),
        snippet: stripMarkup(typeof result.description === 'string' ? result.description : ''),
      }));
  }
}

/** Brave marks matches with `<strong>`. */
function stripMarkup(text: string): string {
  return text.replace(/<[^>]+>/g, '');
}
