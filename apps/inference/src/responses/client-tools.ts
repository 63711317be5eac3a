import type { ResponsesCustomToolCallItemView, ResponsesFunctionCallItemView, ResponsesLocalShellCallItemView } from '@gw/contracts';
import { GatewayError } from '@gw/errors';

type Json = Record<string, unknown>;

/** A client tool that the model sees as a chat function of another name or shape. */
export type ClientTool =
  | { kind: 'function'; name: string; namespace: string }
  /** `grammar`: sent as chat's own custom tool, so its calls carry the raw input as arguments. */
  | { kind: 'custom'; name: string; namespace?: string; grammar?: true }
  | { kind: 'local_shell' };

/** Chat function name -> the client tool it stands for; a plain function tool has no entry. */
export type ClientToolNames = ReadonlyMap<string, ClientTool>;

/** Chat's function names: letters, digits, `_` and `-`, at most 64 (as OpenAI checks them). */
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const LOCAL_SHELL_FUNCTION = 'local_shell';

const WEB_SEARCH_TYPES = new Set(['web_search', 'web_search_2025_08_26', 'web_search_preview', 'web_search_preview_2025_03_11']);
/** `search_context_size` as the number of results the service's search returns. */
const RESULTS_BY_CONTEXT_SIZE: Record<string, number> = { low: 3, medium: 5, high: 10 };

/** Why each tool kind of OpenAI's Responses API that this gateway does not run is refused. */
const REFUSED: Record<string, string> = {
  file_search: 'it searches vector stores, which this gateway does not keep',
  computer: 'computer use runs only on OpenAI',
  computer_use_preview: 'computer use runs only on OpenAI',
  mcp: 'remote MCP servers are not called by this gateway; call them from the client and send function tools',
  code_interpreter: 'hosted containers are not run by this gateway',
  image_generation: 'ask an image model with modalities: ["text", "image"] instead',
  programmatic_tool_calling: 'hosted containers are not run by this gateway',
  shell: 'hosted shells are not run by this gateway; use local_shell or a function tool',
  tool_search: 'deferred tools are not supported; send every tool',
  apply_patch: 'use a function or custom tool',
};

/** The name the model sees for a namespaced tool: `<namespace>__<name>`. */
export function namespacedName(namespace: string, name: string): string {
  return `${namespace}__${name}`;
}

/**
 * The Responses tools as chat tools: function tools nested, `namespace` tools
 * flattened into functions named `<namespace>__<name>`, `custom` and `local_shell` tools as
 * functions taking their input, `web_search*` as the service's own search; other kinds a 400.
 */
export function translateTools(tools: readonly Json[]): { chatTools: Json[]; names: Map<string, ClientTool> } {
  const names = new Map<string, ClientTool>();
  const taken = new Set<string>();
  const chatTools: Json[] = [];
  const add = (position: string, chatName: string, tool: Json, client?: ClientTool): void => {
    if (!FUNCTION_NAME.test(chatName))
      throw GatewayError.badRequest(`${position}: the tool name ${chatName} must be 1 to 64 letters, digits, _ or -`);
    if (taken.has(chatName)) throw GatewayError.badRequest(`${position}: a tool named ${chatName} is given twice`);
    taken.add(chatName);
    if (client) names.set(chatName, client);
    chatTools.push(tool);
  };
  for (const [index, tool] of tools.entries()) {
    const position = `tools[${index}]`;
    const type = String(tool.type);
    if (type.startsWith('service:') || type.startsWith('openrouter:')) chatTools.push({ ...tool });
    else if (type === 'function') add(position, String(tool.name ?? ''), functionTool(tool, position));
    else if (type === 'custom') {
      const custom = customTool(tool, position);
      add(position, String(tool.name ?? ''), custom, { kind: 'custom', name: String(tool.name), ...grammarFlag(custom) });
    } else if (type === 'namespace') {
      const namespace = String(tool.name ?? '');
      if (!Array.isArray(tool.tools) || tool.tools.length === 0)
        throw GatewayError.badRequest(`${position}: a namespace tool needs name and tools`);
      for (const [inner, member] of (tool.tools as Json[]).entries()) {
        const where = `${position}.tools[${inner}]`;
        const name = String(member.name ?? '');
        const chatName = namespacedName(namespace, name);
        if (member.type === 'function')
          add(where, chatName, functionTool({ ...member, name: chatName }, where), { kind: 'function', name, namespace });
        else if (member.type === 'custom') {
          const custom = customTool({ ...member, name: chatName }, where);
          add(where, chatName, custom, { kind: 'custom', name, namespace, ...grammarFlag(custom) });
        } else throw GatewayError.badRequest(`${where}: a namespace holds function and custom tools, not ${String(member.type)}`);
      }
    } else if (type === 'local_shell') add(position, LOCAL_SHELL_FUNCTION, LOCAL_SHELL_TOOL, { kind: 'local_shell' });
    else if (WEB_SEARCH_TYPES.has(type)) chatTools.push(webSearchTool(tool, position));
    else {
      const why = REFUSED[type];
      throw GatewayError.badRequest(
        `${position}: tools of type ${type} are not supported${why ? `: ${why}` : ''}; supported: function, custom, namespace, local_shell, web_search, web_search_preview and the server tools (service:web_search, service:web_fetch)`,
        { reason: 'unsupported_tool', tool: type },
      );
    }
  }
  return { chatTools, names };
}

function functionTool(tool: Json, position: string): Json {
  if (typeof tool.name !== 'string' || tool.name.length === 0) throw GatewayError.badRequest(`${position}: a function tool needs a name`);
  if (tool.defer_loading === true)
    throw GatewayError.badRequest(`${position}: defer_loading is not supported (no tool search); send the tool whole`);
  if (tool.async === true) throw GatewayError.badRequest(`${position}: async function tools are not supported`);
  const fn: Json = { name: tool.name, parameters: tool.parameters ?? { type: 'object', properties: {} } };
  if (typeof tool.description === 'string') fn.description = tool.description;
  if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

/**
 * A custom tool takes free text: the model sees a function with one string argument, `input`.
 * One whose input a grammar constrains is chat's own custom tool instead, which the adapters of
 * OpenAI's APIs send as it is and the others refuse by name (docs/adr: grammar tools).
 */
function customTool(tool: Json, position: string): Json {
  if (typeof tool.name !== 'string' || tool.name.length === 0) throw GatewayError.badRequest(`${position}: a custom tool needs a name`);
  const format = tool.format as Json | undefined | null;
  if (format?.type === 'grammar') return grammarTool(tool, format, position);
  if (format && format.type !== 'text')
    throw GatewayError.badRequest(`${position}.format.type must be text or grammar`, { reason: 'unsupported_tool', tool: 'custom' });
  const fn: Json = {
    name: tool.name,
    parameters: {
      type: 'object',
      properties: { input: { type: 'string', description: 'The input for the tool, as free text' } },
      required: ['input'],
      additionalProperties: false,
    },
  };
  if (typeof tool.description === 'string') fn.description = tool.description;
  return { type: 'function', function: fn };
}

function grammarTool(tool: Json, format: Json, position: string): Json {
  if (format.syntax !== 'lark' && format.syntax !== 'regex')
    throw GatewayError.badRequest(`${position}.format.syntax must be lark or regex`);
  if (typeof format.definition !== 'string' || format.definition.length === 0)
    throw GatewayError.badRequest(`${position}.format.definition must be the grammar, a non-empty string`);
  const custom: Json = { name: tool.name, format: { type: 'grammar', grammar: { syntax: format.syntax, definition: format.definition } } };
  if (typeof tool.description === 'string') custom.description = tool.description;
  return { type: 'custom', custom };
}

function grammarFlag(chatTool: Json): { grammar?: true } {
  return chatTool.type === 'custom' ? { grammar: true } : {};
}

const LOCAL_SHELL_TOOL: Json = {
  type: 'function',
  function: {
    name: LOCAL_SHELL_FUNCTION,
    description: 'Run a command on the local machine and return its output.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'array', items: { type: 'string' }, description: 'The command and its arguments, e.g. ["ls", "-la"]' },
        working_directory: { type: 'string', description: 'Where to run it' },
        timeout_ms: { type: 'integer', description: 'Time limit in milliseconds' },
      },
      required: ['command'],
      additionalProperties: false,
    },
  },
};

/**
 * OpenAI's hosted web search, run as the service's own (`service:web_search`), with
 * its domain filter and the user's location (checked where server tools are read).
 */
function webSearchTool(tool: Json, position: string): Json {
  const filters = tool.filters as Json | null | undefined;
  if (filters !== undefined && filters !== null && (typeof filters !== 'object' || Array.isArray(filters)))
    throw GatewayError.badRequest(`${position}.filters must be an object with allowed_domains`);
  const size = tool.search_context_size;
  if (size !== undefined && size !== null && !(String(size) in RESULTS_BY_CONTEXT_SIZE))
    throw GatewayError.badRequest(`${position}: search_context_size must be low, medium or high`);
  return {
    type: 'service:web_search',
    ...(typeof size === 'string' ? { max_results: RESULTS_BY_CONTEXT_SIZE[size] } : {}),
    ...(filters?.allowed_domains !== undefined && filters.allowed_domains !== null ? { allowed_domains: filters.allowed_domains } : {}),
    ...(tool.user_location !== undefined && tool.user_location !== null ? { user_location: tool.user_location } : {}),
  };
}

/** A chat tool call as the Responses output item of the client's tool it calls. */
export function clientCallItem(
  names: ClientToolNames,
  id: string,
  callId: string,
  chatName: string,
  args: string,
  status: 'in_progress' | 'completed' | 'incomplete',
): ResponsesFunctionCallItemView | ResponsesCustomToolCallItemView | ResponsesLocalShellCallItemView {
  const tool = names.get(chatName);
  if (!tool) return { type: 'function_call', id, call_id: callId, name: chatName, arguments: args, status };
  if (tool.kind === 'function')
    return { type: 'function_call', id, call_id: callId, name: tool.name, namespace: tool.namespace, arguments: args, status };
  if (tool.kind === 'custom')
    return {
      type: 'custom_tool_call',
      id,
      call_id: callId,
      name: tool.name,
      ...(tool.namespace ? { namespace: tool.namespace } : {}),
      input: status === 'in_progress' ? '' : tool.grammar ? args : customInput(args),
      status,
    };
  const action: Json = status === 'in_progress' ? { command: [] } : parsedArguments(args);
  return {
    type: 'local_shell_call',
    id,
    call_id: callId,
    action: {
      type: 'exec',
      command: Array.isArray(action.command) ? action.command.map(String) : [],
      env: {},
      ...(typeof action.working_directory === 'string' ? { working_directory: action.working_directory } : {}),
      ...(typeof action.timeout_ms === 'number' ? { timeout_ms: action.timeout_ms } : {}),
    },
    status,
  };
}

/** The free text a custom tool call carries (its `input` argument). */
function customInput(args: string): string {
  const input = parsedArguments(args).input;
  return typeof input === 'string' ? input : '';
}

function parsedArguments(args: string): Json {
  try {
    const value = JSON.parse(args) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
  } catch {
    return {};
  }
}
