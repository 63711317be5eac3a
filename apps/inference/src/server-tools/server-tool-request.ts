import { STOP_CONDITION_FIELDS, stopConditionsProblem, type StopCondition } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { SearchLocation, SearchOptions } from './search-backends.js';
import { serverToolName } from '@gw/usage';

/** Shared with the gateway's response-cache check (libs/usage). */
export { serverToolName };

type Json = Record<string, unknown>;

/** Spec §4.5 / §8: server-tool agent steps, default and maximum. */
export const MAX_TOOL_CALLS = 30;

/** The server tools this gateway runs, as `service:<name>`. */
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

/** One server tool the model may call, and how its searches are bounded. */
export interface ServerToolPlan {
  kind: ServerToolKind;
  maxResults?: number;
  /** web_search: the domains its results must be on, and where the user roughly is. */
  search?: SearchOptions;
}

export interface ServerToolsPlan {
  /** Function name the model sees -> the server tool it runs. */
  tools: Map<string, ServerToolPlan>;
  /** Server-tool steps allowed (`max_tool_calls`, default and maximum 30); unused when `stopWhen` is set. */
  maxToolCalls: number;
  /** `stop_server_tools_when`: OR of the conditions; overrides `maxToolCalls`. */
  stopWhen?: StopCondition[];
}

const TOOL_KEYS = new Set(['type', 'max_results', 'parameters', 'allowed_domains', 'user_location']);
/** OpenAI's bound on `filters.allowed_domains`. */
const MAX_ALLOWED_DOMAINS = 100;
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const LOCATION_FIELDS = ['country', 'region', 'city', 'timezone'] as const;

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
      throw GatewayError.badRequest(
        `tools[${position}]: ${tool.type} does not take ${unknown.join(', ')}; it takes max_results, allowed_domains and user_location`,
        {
          reason: 'unsupported_tool',
          tool: tool.type,
        },
      );
    if (functionNames.has(kind))
      throw GatewayError.badRequest(
        `tools[${position}]: a function tool named ${kind} is also given; ${tool.type} is offered to the model under that name`,
      );
    if (plan.tools.has(kind)) throw GatewayError.badRequest(`tools[${position}]: ${tool.type} is given twice`);
    const maxResults = parseMaxResults(tool, position);
    const search = kind === 'web_search' ? parseSearchOptions(tool, position) : undefined;
    plan.tools.set(kind, {
      kind: kind as ServerToolKind,
      ...(maxResults !== undefined ? { maxResults } : {}),
      ...(search ? { search } : {}),
    });
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

/** `allowed_domains` (host names; a scheme or a trailing slash is dropped) and `user_location` of a web search. */
function parseSearchOptions(tool: Json, position: number): SearchOptions | undefined {
  const options: SearchOptions = {};
  const domains = tool.allowed_domains;
  if (domains !== undefined && domains !== null) {
    if (!Array.isArray(domains) || domains.length > MAX_ALLOWED_DOMAINS)
      throw GatewayError.badRequest(`tools[${position}].allowed_domains must be an array of at most ${MAX_ALLOWED_DOMAINS} domains`);
    const hosts = domains.map((entry: unknown, index) => {
      const host =
        typeof entry === 'string'
          ? entry
              .trim()
              .toLowerCase()
              .replace(/^https?:\/\//, '')
              .replace(/\/+$/, '')
          : '';
      if (!HOST_NAME.test(host))
        throw GatewayError.badRequest(
          `tools[${position}].allowed_domains[${index}]: ${JSON.stringify(entry)} is not a domain such as example.com`,
        );
      return host;
    });
    if (hosts.length > 0) options.allowedDomains = hosts;
  }
  const location = parseUserLocation(tool.user_location, position);
  if (location) options.location = location;
  return Object.keys(options).length > 0 ? options : undefined;
}

/** OpenAI's approximate location: `{type: "approximate", country, region, city, timezone}`, each optional. */
function parseUserLocation(value: unknown, position: number): SearchLocation | undefined {
  if (value === undefined || value === null) return undefined;
  const where = `tools[${position}].user_location`;
  if (typeof value !== 'object' || Array.isArray(value)) throw GatewayError.badRequest(`${where} must be an object`);
  const { type, ...fields } = value as Json;
  if (type !== undefined && type !== null && type !== 'approximate') throw GatewayError.badRequest(`${where}.type must be "approximate"`);
  const unknown = Object.keys(fields).filter((key) => !(LOCATION_FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0)
    throw GatewayError.badRequest(`${where} does not take ${unknown.join(', ')}; it takes ${LOCATION_FIELDS.join(', ')}`);
  const location: SearchLocation = {};
  for (const field of LOCATION_FIELDS) {
    const text = fields[field];
    if (text === undefined || text === null || text === '') continue;
    if (typeof text !== 'string' || text.length > 100)
      throw GatewayError.badRequest(`${where}.${field} must be a string of at most 100 characters`);
    location[field] = text;
  }
  if (location.country !== undefined && !/^[A-Za-z]{2}$/.test(location.country))
    throw GatewayError.badRequest(`${where}.country must be a two-letter ISO 3166-1 code, such as GB`);
  return Object.keys(location).length > 0 ? location : undefined;
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
