/** The prefixes a server tool's type is spelled with: the service's own and OpenRouter's (`openrouter:web_search`). */
const SERVER_TOOL_PREFIXES = ['service:', 'openrouter:'] as const;

/** The server tool a tool type names (`service:web_search` or `openrouter:web_search` -> `web_search`), else undefined. */
export function serverToolName(type: unknown): string | undefined {
  if (typeof type !== 'string') return undefined;
  const prefix = SERVER_TOOL_PREFIXES.find((candidate) => type.startsWith(candidate));
  return prefix ? type.slice(prefix.length) : undefined;
}
