import type { Msg } from '@nats-io/transport-node';

/**
 * The workspace a management event names (`events.byok.changed`, `events.presets.changed`):
 * Nest's packet (`{pattern, data: {workspaceId}}`) or a bare `{workspaceId}`; undefined when
 * it names none. A message that is not JSON throws (the cache ignores it).
 */
export function workspaceIdOf(message: Msg): string | undefined {
  const packet = message.json<{ data?: { workspaceId?: unknown }; workspaceId?: unknown }>();
  const workspaceId = packet?.data?.workspaceId ?? packet?.workspaceId;
  return typeof workspaceId === 'string' ? workspaceId : undefined;
}
