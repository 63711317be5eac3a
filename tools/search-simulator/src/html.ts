import type { CorpusPage } from './corpus.ts';

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A corpus page as an HTML document with the noise a real page has (script, style, nav). */
export function pageHtml(page: CorpusPage): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escape(page.title)}</title>
<style>body { font-family: sans-serif; }</style>
<script>window.analytics = { track() {} };</script>
</head>
<body>
<nav><a href="/">Home</a></nav>
<main>
<h1>${escape(page.title)}</h1>
${page.paragraphs.map((paragraph) => `<p>${escape(paragraph)}</p>`).join('\n')}
</main>
<footer>Search simulator corpus &copy; nobody</footer>
</body>
</html>
`;
}
