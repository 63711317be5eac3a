/**
 * How the simulated model uses a gateway's server tools, deterministically (the gateway runs
 * them; the model only calls them and reads their results):
 *
 * - a tool named `web_search` is offered (and tool_choice is not "none") and the last user
 *   text asks to search (the word "search"): the model calls `web_search` with the query (the
 *   text after "search for" / "search the web for", else the whole text); "N searches" in the
 *   text makes it search N times (one call a turn, " (2)", " (3)" ... appended to the query);
 * - `web_fetch` is offered and the text says "fetch <url>": the model calls it once per URL;
 * - after the results, it answers citing them as Markdown links `[title](url)`.
 *
 * Without those words the server tools are never called, whatever else is offered.
 */
export const SERVER_TOOL_NAMES = new Set(['web_search', 'web_fetch']);

export interface ServerToolDecision {
  name: 'web_search' | 'web_fetch';
  input: Record<string, string>;
  /** How many of these calls came before (ids stay distinct). */
  turn: number;
}

const MAX_SEARCHES = 10;

interface ParsedResult {
  kind: 'search' | 'fetch' | 'error' | 'other';
  value: Record<string, unknown>;
}

function parse(result: string): ParsedResult {
  try {
    const value = JSON.parse(result) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'other', value: {} };
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.results) && typeof record.query === 'string') return { kind: 'search', value: record };
    if (typeof record.url === 'string' && typeof record.text === 'string') return { kind: 'fetch', value: record };
    if (typeof record.error === 'string') return { kind: 'error', value: record };
    return { kind: 'other', value: record };
  } catch {
    return { kind: 'other', value: {} };
  }
}

export function searchQueryOf(text: string): string {
  const match = /\bsearch(?:\s+the\s+web)?\s+(?:for|about)\s+(.+?)(?:[.?!]\s*$|[.?!]\s|$)/i.exec(text);
  return (match?.[1] ?? text).replace(/\b\d+\s+searches\b/i, '').trim() || text.trim();
}

/**
 * The server tool the model calls next, if any. `offered`: the function tools it may call
 * now; `userText`: the last user text; `results`: the tool results since then, oldest first.
 */
export function serverToolCall(offered: readonly string[], userText: string, results: readonly string[]): ServerToolDecision | undefined {
  // The calls come in a fixed order (the searches, then the fetches), so the count of results
  // so far says which comes next.
  const done = results.map(parse).filter((result) => result.kind !== 'other').length;
  const searching = offered.includes('web_search') && /\bsearch(es|ing)?\b/i.test(userText);
  const wanted = searching ? Math.min(MAX_SEARCHES, Number(/\b(\d+)\s+searches\b/i.exec(userText)?.[1] ?? 1) || 1) : 0;
  if (done < wanted) {
    const query = searchQueryOf(userText);
    return { name: 'web_search', input: { query: done === 0 ? query : `${query} (${done + 1})` }, turn: done };
  }
  if (!offered.includes('web_fetch')) return undefined;
  const urls = [...userText.matchAll(/\bfetch\s+(https?:\/\/[^\s"'<>]+?)(?=[.,;!?]?(?:\s|$))/gi)].map((match) => match[1]!);
  const next = urls[done - wanted];
  return next ? { name: 'web_fetch', input: { url: next }, turn: done } : undefined;
}

/** The answer after server tool results: the first two search results and any fetched page, cited as Markdown links. */
export function citingReply(results: readonly string[]): string | undefined {
  const parsed = results.map(parse);
  if (!parsed.some((result) => result.kind === 'search' || result.kind === 'fetch' || result.kind === 'error')) return undefined;
  const sentences: string[] = [];
  const cited = new Set<string>();
  for (const result of parsed) {
    if (result.kind === 'search') {
      const hits = (result.value.results as Array<Record<string, unknown>>)
        .filter((hit) => typeof hit.url === 'string' && !cited.has(hit.url as string))
        .slice(0, 2);
      if (hits.length === 0) sentences.push(`The search for "${String(result.value.query)}" found nothing.`);
      for (const hit of hits) {
        cited.add(hit.url as string);
        sentences.push(
          `According to [${String(hit.title ?? hit.url)}](${String(hit.url)}): ${String(hit.snippet ?? hit.content ?? '').trim()}`,
        );
      }
    } else if (result.kind === 'fetch') {
      const text = String(result.value.text).replace(/\s+/g, ' ').trim();
      sentences.push(
        `The page [${String(result.value.title ?? result.value.url)}](${String(result.value.url)}) says: "${text.length > 160 ? `${text.slice(0, 160)}...` : text}"`,
      );
    } else if (result.kind === 'error') {
      sentences.push(`The tool failed: ${String(result.value.error)}`);
    }
  }
  return sentences.join(' ');
}
