import { posix } from 'node:path';
import { valueFromSchema } from './reply.ts';

/**
 * How a user steers the simulated model to one of the offered tools (how tests drive a coding
 * agent's Read or Bash tool), instead of the first one:
 * - "use the <Name> tool" (any case) anywhere in the user's text;
 * - or the tool's name as a word followed, within three words, by a file path ("Read note.txt",
 *   "read the file /tmp/x/note.txt"); the last such mention wins.
 * The input fills only the schema's required properties; a string one named like a path or file
 * takes that path, a relative one joined to the working directory the instructions state
 * ("working directory: /abs", as Claude Code's environment block says).
 */
export interface SteeredTool {
  name: string;
  /** The path written after the tool's name, if any. */
  path?: string;
}

const PATH = String.raw`(\/[^\s"'\`<>]+?|[\w.-]+(?:\/[\w.-]+)*\.[A-Za-z0-9]+)[.,;:!?)]*(?=\s|$)`;

export function steeredTool(userText: string, offered: readonly string[]): SteeredTool | undefined {
  const byName = (word: string) => offered.find((name) => name.toLowerCase() === word.toLowerCase());
  for (const match of userText.matchAll(/\buse the ([A-Za-z0-9_-]+) tool\b/gi)) {
    const name = byName(match[1]!);
    if (name) return { name, path: firstPath(userText.slice(match.index)) };
  }
  let found: SteeredTool | undefined;
  const after = new RegExp(String.raw`^\s+(?:[\w-]+\s+){0,3}?${PATH}`);
  for (const word of userText.matchAll(/\b[A-Za-z][A-Za-z0-9_-]*\b/g)) {
    const name = byName(word[0]);
    const path = name ? after.exec(userText.slice(word.index + word[0].length))?.[1] : undefined;
    if (name && path !== undefined) found = { name, path };
  }
  return found;
}

function firstPath(text: string): string | undefined {
  return new RegExp(String.raw`(?:^|\s)${PATH}`).exec(text)?.[1];
}

/** The working directory the instructions state, if any. */
export function workingDirectoryOf(instructions: string): string | undefined {
  return /working directory:\s*(\/[^\s"'`<>]+)/i.exec(instructions)?.[1];
}

/** The steered tool's input: its required properties, the path (made absolute when it can be) where one is wanted. */
export function steeredToolInput(
  schema: unknown,
  userText: string,
  steered: SteeredTool,
  workingDirectory?: string,
): Record<string, unknown> {
  const path =
    steered.path === undefined || steered.path.startsWith('/') || workingDirectory === undefined
      ? steered.path
      : posix.join(workingDirectory, steered.path);
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
