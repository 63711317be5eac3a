import type { AnnotationView } from '@gw/contracts';

export interface CitableSource {
  url: string;
  title: string;
  snippet?: string;
}

/**
 * `url_citation` annotations for the sources a text cites: each place the text
 * names a source's URL, as a Markdown link `[label](url)` (the whole link is the cited span)
 * or the bare URL. Indexes are JavaScript string offsets, as OpenAI's are; in text order.
 */
export function urlCitations(text: string, sources: readonly CitableSource[]): AnnotationView[] {
  const found: Array<AnnotationView & { type: 'url_citation' }> = [];
  const seen = new Set<string>();
  const byUrl = new Map<string, CitableSource>();
  for (const source of sources) if (!byUrl.has(source.url)) byUrl.set(source.url, source);
  for (const source of byUrl.values()) {
    for (let from = text.indexOf(source.url); from >= 0; from = text.indexOf(source.url, from + source.url.length)) {
      let start = from;
      let end = from + source.url.length;
      // A Markdown link: `[label](url)`.
      if (text[from - 1] === '(' && text[from - 2] === ']' && text[end] === ')') {
        const open = text.lastIndexOf('[', from - 2);
        if (open >= 0) {
          start = open;
          end += 1;
        }
      }
      // A longer URL that merely starts with this one is not a citation of it.
      if (/[\w/%.-]/.test(text[from + source.url.length] ?? '') && text[from + source.url.length] !== '.') continue;
      const key = `${start}:${end}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const citation: { url: string; title: string; start_index: number; end_index: number; content?: string } = {
        url: source.url,
        title: source.title,
        start_index: start,
        end_index: end,
      };
      if (source.snippet) citation.content = source.snippet;
      found.push({ type: 'url_citation', url_citation: citation });
    }
  }
  return found.sort((a, b) => a.url_citation.start_index - b.url_citation.start_index);
}
