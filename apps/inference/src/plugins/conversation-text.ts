type Json = Record<string, unknown>;

/** The text of a message's content: a string, or its text parts joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Json[])
    .filter((part) => part && (part.type === 'text' || part.type === 'input_text') && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

/** The index of the last user message, or -1. */
export function lastUserIndex(messages: readonly Json[]): number {
  for (let index = messages.length - 1; index >= 0; index--) if (messages[index]!.role === 'user') return index;
  return -1;
}

/** Inserts a system message just before the last user message (or at the end without one). */
export function withContextBefore(messages: readonly Json[], content: string): Json[] {
  const at = lastUserIndex(messages);
  const copy = [...messages];
  copy.splice(at < 0 ? copy.length : at, 0, { role: 'system', content });
  return copy;
}

/** `*.example.com` matches example.com's subdomains; `example.com/blog` a path prefix; a bare domain itself and its subdomains. */
export function matchesDomain(url: string, pattern: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.toLowerCase();
  const [domainPart, ...pathParts] = pattern
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .split('/');
  const path = pathParts.length > 0 ? `/${pathParts.join('/')}` : '';
  const domain = domainPart!.replace(/^\*\./, '');
  const hostMatches = host === domain || host.endsWith(`.${domain}`);
  return hostMatches && (!path || parsed.pathname.startsWith(path));
}
