import { describe, expect, it } from 'vitest';
import { CitationMarkerStripper, stripCitationMarkers } from './strip-citation-markers.plugin.js';

describe('strip-citation-markers', () => {
  it('removes [n], [n, m] and [^n] markers with the space before them, keeping Markdown links', () => {
    expect(stripCitationMarkers('Rust is fast [1]. It is safe [2, 3] and loved[^4]. See [1](https://a.test).').text).toBe(
      'Rust is fast. It is safe and loved. See [1](https://a.test).',
    );
  });

  it('moves annotation offsets onto the stripped text', () => {
    const text = 'According to [A](https://a.test) [1]: one. According to [B](https://b.test) [2]: two.';
    const b = text.indexOf('[B]');
    const annotations = [
      { type: 'url_citation' as const, url_citation: { url: 'https://a.test', title: 'A', start_index: 13, end_index: 32 } },
      { type: 'url_citation' as const, url_citation: { url: 'https://b.test', title: 'B', start_index: b, end_index: b + 19 } },
    ];
    const stripped = stripCitationMarkers(text, annotations);
    expect(stripped.text).toBe('According to [A](https://a.test): one. According to [B](https://b.test): two.');
    for (const annotation of stripped.annotations!) {
      if (annotation.type !== 'url_citation') continue;
      const { start_index, end_index, url } = annotation.url_citation;
      expect(stripped.text.slice(start_index, end_index)).toBe(`[${url === 'https://a.test' ? 'A' : 'B'}](${url})`);
    }
  });

  it('strips markers split across stream pieces and releases everything else', () => {
    const stripper = new CitationMarkerStripper();
    const pieces = ['Fast', ' [', '1', '] and', ' safe [2', ']', '. A [link', '](https://x.test) [3]'];
    const out = pieces.map((piece) => stripper.push(piece)).join('') + stripper.flush();
    expect(out).toBe('Fast and safe. A [link](https://x.test)');
  });
});
