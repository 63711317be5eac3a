/** One ranked web search result, whatever the backend. */
export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** What `service:web_search` runs on (ADR 0041), chosen by SEARCH_BACKEND. */
export interface SearchBackend {
  readonly name: string;
  search(query: string, count: number, signal?: AbortSignal): Promise<WebSearchResult[]>;
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

/** SearXNG's JSON API (`GET {base}/search?q=…&format=json`), self-hosted; the JSON format must be enabled in its settings. */
export class SearxngBackend implements SearchBackend {
  readonly name = 'searxng';
  constructor(private readonly baseUrl: string) {}

  async search(query: string, count: number, signal?: AbortSignal): Promise<WebSearchResult[]> {
    const url = new URL('search', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    const body = (await getJson(url, {}, 'SearXNG', signal)) as {
      results?: Array<{ url?: unknown; title?: unknown; content?: unknown; score?: unknown }>;
    };
    return (body.results ?? [])
      .filter((result) => typeof result.url === 'string')
      .slice(0, count)
      .map((result) => ({
        url: String(result.url),
        title: typeof result.title === 'string' ? result.title : String(result.url),
        snippet: typeof result.content === 'string' ? result.content : '',
      }));
  }
}

/** Brave Search's web search API (`X-Subscription-Token`). */
export class BraveBackend implements SearchBackend {
  readonly name = 'brave';
  constructor(
    private readonly apiKey: string,
    private readonly endpoint = 'https://api.search.brave.com/res/v1/web/search',
  ) {}

  async search(query: string, count: number, signal?: AbortSignal): Promise<WebSearchResult[]> {
    const url = new URL(this.endpoint);
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(Math.min(count, 20)));
    const body = (await getJson(url, { 'x-subscription-token': this.apiKey }, 'Brave Search', signal)) as {
      web?: { results?: Array<{ url?: unknown; title?: unknown; description?: unknown }> };
    };
    return (body.web?.results ?? [])
      .filter((result) => typeof result.url === 'string')
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
