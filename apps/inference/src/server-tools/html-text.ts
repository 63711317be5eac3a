/**
 * HTML as readable text for a model: the `<title>`, then the body without scripts, styles,
 * navigation, forms and comments, block elements on their own lines, entities decoded,
 * whitespace collapsed. A page's prose is what a model needs; layout is not.
 */
export function htmlToText(html: string): { title: string | null; text: string } {
  const titleMatch = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = titleMatch ? decodeEntities(stripTags(titleMatch[1]!)).replace(/\s+/g, ' ').trim() || null : null;
  let body = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template|svg|head|title|nav|footer|form|iframe)\b[\s\S]*?<\/\1\s*>/gi, ' ');
  body = body
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/?(p|div|section|article|main|header|h[1-6]|li|ul|ol|tr|table|blockquote|pre|dd|dt|dl|figcaption)\b[^>]*>/gi, '\n');
  const text = decodeEntities(stripTags(body))
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\r\u00a0]+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
  return { title, text };
}

function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, ' ');
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[entity.toLowerCase()] ?? whole;
  });
}
