import { GatewayError } from '@gw/errors';
import { LOCAL_SHELL_FUNCTION, namespacedName, type ClientToolNames } from './client-tools.js';

type Json = Record<string, unknown>;

/**
 * A call item of the client's tools, sent back in `input`, as the chat tool call the model
 * made (the inverse of clientCallItem): a namespaced function_call under its flattened name,
 * a custom_tool_call with its text as the `input` argument (as it is, for a grammar tool), a
 * local_shell_call with its action.
 */
export function chatToolCallOf(item: Json, position: number, names: ClientToolNames): Json {
  const callId = item.call_id;
  if (typeof callId !== 'string') throw GatewayError.badRequest(`input[${position}]: a ${String(item.type)} needs call_id`);
  const call = (name: string, args: string): Json => ({ id: callId, type: 'function', function: { name, arguments: args } });
  if (item.type === 'local_shell_call') {
    const { type: _type, ...action } = (item.action ?? {}) as Json;
    return call(LOCAL_SHELL_FUNCTION, JSON.stringify(action));
  }
  if (typeof item.name !== 'string') throw GatewayError.badRequest(`input[${position}]: a ${String(item.type)} needs call_id and name`);
  const name = typeof item.namespace === 'string' && item.namespace.length > 0 ? namespacedName(item.namespace, item.name) : item.name;
  if (item.type === 'custom_tool_call') {
    const input = typeof item.input === 'string' ? item.input : '';
    const tool = names.get(name);
    return call(name, tool?.kind === 'custom' && tool.grammar ? input : JSON.stringify({ input }));
  }
  return call(name, typeof item.arguments === 'string' ? item.arguments : '{}');
}

/** The id of the call an output item answers: `call_id`, or a local_shell_call_output's `id`. */
export function answeredCallId(item: Json, position: number): string {
  const id = item.type === 'local_shell_call_output' ? (item.call_id ?? item.id) : item.call_id;
  if (typeof id !== 'string') throw GatewayError.badRequest(`input[${position}]: a ${String(item.type)} needs call_id`);
  return id;
}
