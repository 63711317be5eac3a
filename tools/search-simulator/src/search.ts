import { CORPUS, type CorpusPage } from './corpus.ts';

/** One SearXNG-style result. */
export interface SearchResult {
  url: string;
  title: string;
  content: string;
  engine: string;
  engines: string[];
  score: number;
  category: string;
  positions: number[];
}

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'in',
  'on',
  'for',
  'to',
  'and',
  'or',
  'is',
  'what',
  'who',
  'when',
  'how',
  'search',
  'web',
  'please',
  'find',
  'about',
  'me',
  'with',
  'by',
  'it',
  'its',
]);

export function terms(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((term) => term.length > 1 && !STOP_WORDS.has(term));
}

/**
 * Deterministic ranking: a page scores 3 per query term in its title and 1 per occurrence in
 * its body; ties are broken by slug. Pages that match no term are left out.
 */
export function rank(query: string, limit = 5): Array<{ page: CorpusPage; score: number }> {
  const wanted = [...new Set(terms(query))];
  const scored = CORPUS.map((page) => {
    const title = terms(page.title);
    const body = terms(page.paragraphs.join(' '));
    let score = 0;
    for (const term of wanted) {
      score += 3 * title.filter((t) => t === term).length;
      score += body.filter((t) => t === term).length;
    }
    return { page, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.page.slug.localeCompare(b.page.slug))
    .slice(0, limit);
}

/**
 * `site:` operators, which SearXNG passes on to its engines and this one reads as Google does:
 * the domains results must be on (or under), and the words left to rank by.
 */
export function siteOperators(query: string): { words: string; sites: string[] } {
  const sites: string[] = [];
  const words = query.replace(/(^|\s)site:(\S+)/gi, (_match, lead: string, site: string) => {
    sites.push(site.toLowerCase());
    return lead;
  });
  return { words: words.trim(), sites };
}

/** SearXNG's `format=json` answer for a query, with page URLs under `baseUrl` (every page lives on its host). */
export function searchResponse(query: string, baseUrl: string, limit = 5): Record<string, unknown> {
  const { words, sites } = siteOperators(query);
  const host = new URL(baseUrl).hostname.toLowerCase();
  const onSite = sites.length === 0 || sites.some((site) => host === site || host.endsWith(`.${site}`));
  const ranked = onSite ? rank(words, limit) : [];
  const top = ranked[0]?.score ?? 1;
  const results: SearchResult[] = ranked.map(({ page, score }, index) => ({
    url: `${baseUrl}/pages/${page.slug}`,
    title: page.title,
    content: page.paragraphs[0] ?? '',
    engine: 'simulator',
    engines: ['simulator'],
    score: Math.round((score / top) * 1000) / 1000,
    category: 'general',
    positions: [index + 1],
  }));
  return {
    query,
    number_of_results: results.length,
    results,
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [],
    unresponsive_engines: [],
  };
}
