import type { NatsConnection, Subscription } from '@nats-io/transport-node';

/**
 * Subscribes to a management event that names a workspace (`events.byok.changed`,
 * `events.presets.changed`) on every replica (no queue group). Accepts Nest's packet
 * (`{pattern, data: {workspaceId}}`) and a bare `{workspaceId}`; anything else is ignored.
 */
export function onWorkspaceChanged(connection: NatsConnection, subject: string, drop: (workspaceId: string) => void): Subscription {
  return connection.subscribe(subject, {
    callback: (error, message) => {
      if (error) return;
      try {
        const packet = message.json<{ data?: { workspaceId?: unknown }; workspaceId?: unknown }>();
        const workspaceId = packet?.data?.workspaceId ?? packet?.workspaceId;
        if (typeof workspaceId === 'string') drop(workspaceId);
      } catch {
        // malformed: nothing to drop
      }
    },
  });
}
