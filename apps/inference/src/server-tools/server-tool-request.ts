import { STOP_CONDITION_FIELDS, stopConditionsProblem, type StopCondition } from '@gw/contracts';
import { GatewayError } from '@gw/errors';

type Json = Record<string, unknown>;

/** Spec §4.5 / §8: server-tool agent steps, default and maximum. */
export const MAX_TOOL_CALLS = 30;

/** The server tools this gateway runs, as `service:<name>` (ADR 0041). */
export type ServerToolKind = 'web_search' | 'web_fetch';

const SERVER_TOOLS: Record<ServerToolKind, { description: string; parameters: Json }> = {
  web_search: {
    description: 'Search the web. Returns ranked results, each with title, url and snippet. Cite the urls you use.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to search for' } },
      required: ['query'],
      additionalProperties: false,
    },
  },
  web_fetch: {
    description: 'Fetch a web page (http or https) and return its readable text.',
    parameters: {
      type: 'object',
      properties: { url: { type: 'string', description: 'The absolute http(s) URL of the page' } },
      required: ['url'],
      additionalProperties: false,
    },
  },
};

export type { StopCondition };

export interface ServerToolsPlan {
  /** Function name the model sees -> the server tool it runs. */
  tools: Map<string, { kind: ServerToolKind; maxResults?: number }>;
  /** Server-tool steps allowed (`max_tool_calls`, default and maximum 30); unused when `stopWhen` is set. */
  maxToolCalls: number;
  /** `stop_server_tools_when`: OR of the conditions; overrides `maxToolCalls`. */
  stopWhen?: StopCondition[];
}

const TOOL_KEYS = new Set(['type', 'max_results', 'parameters']);

/** The prefixes a server tool's type is spelled with: the service's own and OpenRouter's (`openrouter:web_search`). */
const SERVER_TOOL_PREFIXES = ['service:', 'openrouter:'] as const;

/** The server tool a tool type names (`service:web_search` or `openrouter:web_search` -> `web_search`), else undefined. */
export function serverToolName(type: unknown): string | undefined {
  if (typeof type !== 'string') return undefined;
  const prefix = SERVER_TOOL_PREFIXES.find((candidate) => type.startsWith(candidate));
  return prefix ? type.slice(prefix.length) : undefined;
}

/**
 * The request's `service:*` tools (internal chat form) as function tools the model can call,
 * and the loop's bounds. Undefined when the request offers no server tool. 400s that name the
 * problem: an unknown `service:` tool, a key a server tool does not take, a function tool of
 * the same name, `max_tool_calls` out of 0..30, a stop condition of an unknown kind or without
 * its value. `max_tool_calls` and `stop_server_tools_when` never go upstream.
 */
export function extractServerTools(body: Json): { body: Json; plan?: ServerToolsPlan } {
  const maxToolCalls = parseMaxToolCalls(body.max_tool_calls);
  const stopWhen = parseStopConditions(body.stop_server_tools_when);
  const { max_tool_calls: _max, stop_server_tools_when: _stop, ...rest } = body;
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  if (!tools.some((tool) => serverToolName(tool?.type) !== undefined)) return { body: rest };

  const plan: ServerToolsPlan = { tools: new Map(), maxToolCalls, ...(stopWhen ? { stopWhen } : {}) };
  const functionNames = new Set(
    tools.filter((tool) => tool.type === 'function').map((tool) => String((tool.function as Json | undefined)?.name ?? '')),
  );
  const presented = tools.map((tool, position) => {
    const kind = serverToolName(tool.type);
    if (kind === undefined) return tool;
    if (!(kind in SERVER_TOOLS)) {
      throw GatewayError.badRequest(
        `tools[${position}]: the server tool ${tool.type} is not supported; supported: ${Object.keys(SERVER_TOOLS)
          .map((name) => `service:${name}`)
          .join(', ')}`,
        { reason: 'unsupported_tool', tool: tool.type },
      );
    }
    const unknown = Object.keys(tool).filter((key) => !TOOL_KEYS.has(key));
    if (unknown.length > 0)
      throw GatewayError.badRequest(`tools[${position}]: ${tool.type} does not take ${unknown.join(', ')}; it takes max_results`, {
        reason: 'unsupported_tool',
        tool: tool.type,
      });
    if (functionNames.has(kind))
      throw GatewayError.badRequest(
        `tools[${position}]: a function tool named ${kind} is also given; ${tool.type} is offered to the model under that name`,
      );
    if (plan.tools.has(kind)) throw GatewayError.badRequest(`tools[${position}]: ${tool.type} is given twice`);
    const maxResults = parseMaxResults(tool, position);
    plan.tools.set(kind, { kind: kind as ServerToolKind, ...(maxResults !== undefined ? { maxResults } : {}) });
    const definition = SERVER_TOOLS[kind as ServerToolKind];
    return { type: 'function', function: { name: kind, description: definition.description, parameters: definition.parameters } };
  });
  return { body: { ...rest, tools: presented }, plan };
}

function parseMaxResults(tool: Json, position: number): number | undefined {
  const parameters = (tool.parameters ?? {}) as Json;
  const value = tool.max_results ?? parameters.max_results;
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 20)
    throw GatewayError.badRequest(`tools[${position}].max_results must be an integer from 1 to 20`);
  return value as number;
}

function parseMaxToolCalls(value: unknown): number {
  if (value === undefined || value === null) return MAX_TOOL_CALLS;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_TOOL_CALLS) {
    throw GatewayError.badRequest(`max_tool_calls must be an integer from 0 to ${MAX_TOOL_CALLS} (spec §8)`, {
      reason: 'invalid_max_tool_calls',
    });
  }
  return value as number;
}

function parseStopConditions(value: unknown): StopCondition[] | undefined {
  const problem = stopConditionsProblem(value);
  if (problem) throw GatewayError.badRequest(problem, { reason: 'invalid_stop_condition' });
  if (value === undefined || value === null) return undefined;
  return (value as Json[]).map((raw) => {
    const field = STOP_CONDITION_FIELDS[raw.type as StopCondition['type']].field;
    return { type: raw.type, [field]: raw[field] } as StopCondition;
  });
}
