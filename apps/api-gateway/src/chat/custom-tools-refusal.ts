import { GatewayError } from '@gw/errors';

/**
 * A chat completion's tool calls are `function` calls (spec §2.1), so a custom tool's call could
 * not come back in its own shape: custom tools are served on /v1/responses.
 */
export function refuseCustomTools(tools: unknown): void {
  if (!Array.isArray(tools)) return;
  const at = tools.findIndex((tool) => (tool as { type?: unknown } | null)?.type === 'custom');
  if (at < 0) return;
  throw GatewayError.badRequest(
    `tools[${at}]: custom tools are served on /v1/responses (a chat completion's tool calls are function calls); send a function tool here`,
    { param: `tools[${at}]`, reason: 'unsupported_tool', tool: 'custom' },
  );
}
