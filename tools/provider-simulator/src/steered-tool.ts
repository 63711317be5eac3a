import { valueFromSchema } from './reply.ts';

/**
 * A user can steer the simulated model to one tool by naming it: "use the <Name> tool" (any
 * case) makes it call that tool when it is offered, instead of the first one. Its input fills
 * only the schema's required properties, and a string property named like a path takes the
 * first absolute path written after the tool's name (how a coding agent's Read or Bash tool is
 * driven in tests: "Use the Read tool to read /tmp/x/note.txt").
 */
export function steeredToolName(userText: string, offered: readonly string[]): string | undefined {
  for (const match of userText.matchAll(/\buse the ([A-Za-z0-9_-]+) tool\b/gi)) {
    const named = offered.find((name) => name.toLowerCase() === match[1]!.toLowerCase());
    if (named) return named;
  }
  return undefined;
}

/** The steered tool's input: its required properties, paths from the text after its name. */
export function steeredToolInput(schema: unknown, userText: string, name: string): Record<string, unknown> {
  const at = userText.toLowerCase().indexOf(`use the ${name.toLowerCase()} tool`);
  const after = at < 0 ? userText : userText.slice(at);
  const path = /(?:^|\s)(\/[^\s"'`<>]+?)[.,;:!?)]*(?=\s|$)/.exec(after)?.[1];
  const record = (schema ?? {}) as { properties?: Record<string, unknown>; required?: unknown };
  const properties = record.properties ?? {};
  const required = Array.isArray(record.required) ? (record.required as string[]) : Object.keys(properties);
  const input: Record<string, unknown> = {};
  for (const key of required) {
    const sub = properties[key] as { type?: unknown } | undefined;
    input[key] = path !== undefined && sub?.type === 'string' && /path|file/i.test(key) ? path : valueFromSchema(sub, userText);
  }
  return input;
}
