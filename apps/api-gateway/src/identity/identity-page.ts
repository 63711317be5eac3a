/** The small HTML page the browser lands on after the issuer's callback. */

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

function page(title: string, lines: string[]): string {
  const body = lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto">
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`;
}

export function linkedPage(identity: { issuer: string; subject: string }): string {
  return page('Identity linked', [
    `Your API keys now sign as subject "${identity.subject}" of ${identity.issuer}.`,
    'You can close this window.',
  ]);
}

export function failedPage(status: number, message: string, reason: string | undefined): string {
  return page('Identity not linked', [message, `(${status}${reason ? ` ${reason}` : ''})`, 'Start the login again from your client.']);
}
