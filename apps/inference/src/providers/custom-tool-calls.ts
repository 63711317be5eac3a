import { GatewayError } from '@gw/errors';

type Json = Record<string, unknown>;

/**
 * Chat's custom tools in the internal form (`{type: "custom", custom: {name, format}}`): the
 * Responses front door's tools whose input a grammar constrains. Their calls are function calls
 * inside the gateway whose arguments are the raw input; OpenAI's APIs get them in their own
 * spelling both ways, every other API refuses them by name.
 */
export function customToolNames(tools: unknown): Set<string> {
  const names = new Set<string>();
  if (!Array.isArray(tools)) return names;
  for (const tool of tools as Json[]) {
    const custom = tool?.type === 'custom' ? (tool.custom as Json | undefined) : undefined;
    if (typeof custom?.name === 'string') names.add(custom.name);
  }
  return names;
}

/** 400 for a grammar tool sent where no grammar can be honoured. */
export function grammarToolRefused(where: string, tools: unknown): GatewayError {
  const name = [...customToolNames(tools)][0] ?? 'custom';
  return GatewayError.badRequest(
    `tools: the custom tool ${name} has a grammar format, which ${where} cannot honour (only OpenAI's chat completions and Responses API constrain tool input to a grammar); use an OpenAI model, or send the tool without a format`,
    { reason: 'unsupported_tool', tool: 'custom' },
  );
}

/** An assistant turn's calls of custom tools in chat's custom spelling (`{type: "custom", custom: {name, input}}`). */
export function withCustomCalls(messages: unknown, names: ReadonlySet<string>): unknown {
  if (names.size === 0 || !Array.isArray(messages)) return messages;
  return (messages as Json[]).map((message) => {
    if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) return message;
    const calls = (message.tool_calls as Json[]).map((call) => {
      const fn = (call.function ?? {}) as Json;
      if (typeof fn.name !== 'string' || !names.has(fn.name)) return call;
      return { id: call.id, type: 'custom', custom: { name: fn.name, input: typeof fn.arguments === 'string' ? fn.arguments : '' } };
    });
    return { ...message, tool_calls: calls };
  });
}
