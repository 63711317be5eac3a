import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { JETSTREAM } from '@gw/contracts';
import { ensureStream, type JetStreamPlacement } from '@gw/messaging';
import type { NatsConnection } from '@nats-io/transport-node';

/** How long JetStream remembers a Nats-Msg-Id to drop a duplicate publish of one generation. */
const DUPLICATE_WINDOW_NS = 10 * 60 * 1_000_000_000;
/** Usage events are kept a week: long enough for a consumer that was down to catch up. */
const MAX_AGE_NS = 7 * 24 * 3600 * 1_000_000_000;

/**
 * Creates the USAGE stream with `placement`'s replicas, or raises an existing one's to them:
 * publishers and consumers both call this on start, so no service depends on another having
 * started first.
 */
export async function ensureUsageStream(connection: NatsConnection, placement: JetStreamPlacement): Promise<JetStreamManager> {
  const manager = await jetstreamManager(connection);
  await ensureStream(
    manager,
    { name: JETSTREAM.usageStream, subjects: [...JETSTREAM.usageSubjects], duplicate_window: DUPLICATE_WINDOW_NS, max_age: MAX_AGE_NS },
    placement,
  );
  return manager;
}
