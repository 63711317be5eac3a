import { isRecord, type Json } from './json.ts';

/**
 * OpenAI's custom tools: free text in, constrained by a grammar (Lark or a regex) when one is
 * given. Chat completions spell one `{type: "custom", custom: {name, description, format}}`
 * with `format: {type: "grammar", grammar: {syntax, definition}}`; the Responses API flattens
 * both (`{type: "custom", name, format: {type: "grammar", syntax, definition}}`).
 */

/** A chat custom tool's definition (`custom`), or a reason OpenAI would refuse it. */
export function chatCustomToolProblem(tool: Json, where: string): { message: string; param: string } | undefined {
  const custom = tool.custom;
  if (!isRecord(custom) || typeof custom.name !== 'string' || custom.name === '')
    return { message: `Missing required parameter: '${where}.custom.name'.`, param: `${where}.custom.name` };
  const unknown = Object.keys(custom).find((key) => !['name', 'description', 'format'].includes(key));
  if (unknown)
    return { message: `Unrecognized request argument supplied: ${where}.custom.${unknown}`, param: `${where}.custom.${unknown}` };
  if (custom.format === undefined) return undefined;
  const format = custom.format;
  if (isRecord(format) && format.type === 'text') return undefined;
  if (!isRecord(format) || format.type !== 'grammar')
    return {
      message: `Invalid value: '${String(isRecord(format) ? format.type : format)}'. Supported values are: 'text' and 'grammar'.`,
      param: `${where}.custom.format.type`,
    };
  return grammarProblem(format.grammar, `${where}.custom.format.grammar`);
}

/** A Responses custom tool (flat), or a reason OpenAI would refuse it. */
export function responsesCustomToolProblem(tool: Json, where: string): { message: string; param: string } | undefined {
  if (typeof tool.name !== 'string' || tool.name === '')
    return { message: `Missing required parameter: '${where}.name'.`, param: `${where}.name` };
  const format = tool.format;
  if (format === undefined || (isRecord(format) && format.type === 'text')) return undefined;
  if (!isRecord(format) || format.type !== 'grammar')
    return {
      message: `Invalid value: '${String(isRecord(format) ? format.type : format)}'. Supported values are: 'text' and 'grammar'.`,
      param: `${where}.format.type`,
    };
  return grammarProblem(format, `${where}.format`);
}

function grammarProblem(grammar: unknown, where: string): { message: string; param: string } | undefined {
  if (!isRecord(grammar) || typeof grammar.definition !== 'string' || grammar.definition === '')
    return { message: `Missing required parameter: '${where}.definition'.`, param: `${where}.definition` };
  if (grammar.syntax !== 'lark' && grammar.syntax !== 'regex')
    return {
      message: `Invalid value: '${String(grammar.syntax)}'. Supported values are: 'lark' and 'regex'.`,
      param: `${where}.syntax`,
    };
  if (grammar.syntax === 'regex' && compiled(grammar.definition) === undefined)
    return { message: `Invalid grammar: the regex in '${where}.definition' does not compile.`, param: `${where}.definition` };
  return undefined;
}

/** The Responses custom tool in the chat spelling the shared planner reads. */
export function chatCustomTool(tool: Json): Json {
  const format =
    isRecord(tool.format) && tool.format.type === 'grammar'
      ? { type: 'grammar', grammar: { syntax: tool.format.syntax, definition: tool.format.definition } }
      : undefined;
  return { type: 'custom', custom: { name: tool.name, ...(format ? { format } : {}) } };
}

/** The chat custom tool of that name among the offered tools. */
export function customToolNamed(tools: unknown, name: string): Json | undefined {
  if (!Array.isArray(tools)) return undefined;
  const tool = tools.find((t) => isRecord(t) && t.type === 'custom' && isRecord(t.custom) && t.custom.name === name) as Json | undefined;
  return tool ? (tool.custom as Json) : undefined;
}

/**
 * The text a steered call gives a custom tool (`call <tool> with {"input": "..."}`): its
 * `input`, when the tool's grammar allows it. A regex is checked whole; a Lark grammar is
 * taken on trust (the stand-in does not parse Lark). Undefined: the model cannot write it.
 */
export function grammarInput(custom: Json, args: string): string | undefined {
  let input: unknown;
  try {
    input = (JSON.parse(args) as Json).input;
  } catch {
    return undefined;
  }
  if (typeof input !== 'string') return undefined;
  const format = custom.format;
  if (!isRecord(format) || format.type !== 'grammar' || !isRecord(format.grammar) || format.grammar.syntax !== 'regex') return input;
  return compiled(String(format.grammar.definition))?.test(input) ? input : undefined;
}

function compiled(definition: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${definition})$`, 'u');
  } catch {
    return undefined;
  }
}
