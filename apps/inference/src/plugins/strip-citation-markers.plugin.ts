import type { AnnotationView } from '@gw/contracts';
import { PluginOptions } from './plugin-options.js';

type Json = Record<string, unknown>;

/**
 * `strip-citation-markers`: removes `[1]`-style markers (`[1]`, `[1, 2]`, `[^3]`, with the space
 * before them) from the answer's text, keeping its annotations, whose offsets are moved to
 * the new text. A Markdown link `[1](url)` is a link, not a marker, and stays.
 */
export function parseStripCitationMarkers(raw: Json, where: string): true {
  new PluginOptions(raw, where, 'strip-citation-markers', []);
  return true;
}

const MARKER = /[ \t]?\[\^?\d{1,3}(?:\s*,\s*\^?\d{1,3})*\](?!\()/g;

export interface StrippedText {
  text: string;
  annotations?: AnnotationView[];
}

/** The text without markers, and annotations re-indexed onto it (one whose span was only markers is dropped). */
export function stripCitationMarkers(text: string, annotations?: readonly AnnotationView[]): StrippedText {
  const removed: Array<[number, number]> = [];
  for (const match of text.matchAll(MARKER)) removed.push([match.index, match.index + match[0].length]);
  if (removed.length === 0) return { text, ...(annotations ? { annotations: [...annotations] } : {}) };
  // An offset in the old text -> the same place in the new one.
  const moved = (offset: number) => {
    let shift = 0;
    for (const [start, end] of removed) {
      if (end <= offset) shift += end - start;
      else if (start < offset) shift += offset - start;
    }
    return offset - shift;
  };
  let stripped = '';
  let from = 0;
  for (const [start, end] of removed) {
    stripped += text.slice(from, start);
    from = end;
  }
  stripped += text.slice(from);
  const kept = annotations?.flatMap((annotation): AnnotationView[] => {
    if (annotation.type !== 'url_citation') return [annotation];
    const citation = annotation.url_citation;
    const start = moved(citation.start_index);
    const end = moved(citation.end_index);
    return end > start ? [{ ...annotation, url_citation: { ...citation, start_index: start, end_index: end } }] : [];
  });
  return { text: stripped, ...(kept ? { annotations: kept } : {}) };
}

/**
 * The same on a stream: text is pushed as it comes and what cannot be part of a marker is
 * released at once; a possible marker's beginning (`[`, `[1`, ` [12,`) is held until the
 * next piece decides it (a few characters at most), and `flush()` releases the rest.
 */
export class CitationMarkerStripper {
  private pending = '';

  push(piece: string): string {
    const text = this.pending + piece;
    // Hold back a trailing fragment that could still become a marker (or a marker that could still become a link).
    const tail = /[ \t]?\[\^?[\d,\s^]*\]?$/.exec(text);
    const cut = tail && tail[0].length <= 24 ? tail.index : text.length;
    this.pending = text.slice(cut);
    return text.slice(0, cut).replace(MARKER, '');
  }

  flush(): string {
    const rest = this.pending.replace(MARKER, '');
    this.pending = '';
    return rest;
  }
}
