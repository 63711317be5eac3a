/** The small HTML pages of the sign-in (the callback's outcome), before the console's app loads. */

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** `next`: where the page moves on to (a same-site navigation, so the Strict session cookie goes with it). */
export function consolePage(title: string, lines: string[], next: string | null): string {
  const body = lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n');
  const refresh = next ? `<meta http-equiv="refresh" content="0;url=${escapeHtml(next)}">` : '';
  const link = next ? `<a href="${escapeHtml(next)}">Continue</a>` : '<a href="/console/auth/login">Sign in again</a>';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="robots" content="noindex">${refresh}<title>${escapeHtml(title)}</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto">
<main><h1>${escapeHtml(title)}</h1>
${body}
<p>${link}</p></main>
</body>
</html>
`;
}
