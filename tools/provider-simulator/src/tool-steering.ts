/**
 * A test steers the simulated model to one tool call with the words `call <tool> with <JSON
 * object>` in the last user text: the model calls that tool with exactly those arguments, when
 * the tool is offered and callable now. A client agent (Codex) offers many tools whose
 * arguments, filled from their schemas, would be nonsense to run.
 */
export interface SteeredCall {
  name: string;
  arguments: string;
}

const STEER = /\bcall\s+([A-Za-z0-9_-]{1,64})\s+with\s+(\{.*\})/s;

export function steeredToolCall(callable: readonly string[], userText: string): SteeredCall | undefined {
  const match = STEER.exec(userText);
  if (!match || !callable.includes(match[1]!)) return undefined;
  try {
    const args = JSON.parse(match[2]!) as unknown;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
    return { name: match[1]!, arguments: JSON.stringify(args) };
  } catch {
    return undefined;
  }
}
