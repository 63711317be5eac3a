import { Logger } from '@nestjs/common';
import type { JetStreamManager, Placement, StreamConfig } from '@nats-io/jetstream';

/**
 * Where the services' JetStream streams, consumers and stores live: how many copies (1 on a
 * single server, 3 on a cluster, so one node down loses nothing and stops nothing) and, for
 * multi-zone clusters, the server tags a placement requires.
 */
export interface JetStreamPlacement {
  replicas: number;
  tags: string[];
}

export const SINGLE_NODE: JetStreamPlacement = { replicas: 1, tags: [] };

/** The variables of `CommonEnv` (`@gw/config`) that place the services' JetStream assets. */
export interface JetStreamPlacementEnv {
  JETSTREAM_REPLICAS: number;
  JETSTREAM_PLACEMENT_TAGS?: string;
}

export function jetStreamPlacementFromEnv(env: JetStreamPlacementEnv): JetStreamPlacement {
  const tags = (env.JETSTREAM_PLACEMENT_TAGS ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
  return { replicas: env.JETSTREAM_REPLICAS, tags };
}

/** The part of a stream's (or an object store's) configuration that places it. */
export function placementConfig(placement: JetStreamPlacement): { num_replicas: number; placement?: Placement } {
  return { num_replicas: placement.replicas, ...(placement.tags.length > 0 ? { placement: serverPlacement(placement) } : {}) };
}

/** Tags only: an empty cluster name lets the servers choose among the clusters that have them. */
export function serverPlacement(placement: JetStreamPlacement): Placement {
  return { cluster: '', tags: placement.tags };
}

const logger = new Logger('JetStream');

/**
 * Creates the stream with `placement` when it is missing; when it exists with fewer replicas
 * than asked (made before the cluster, or by a replica with the default), raises them with a
 * stream update, logged. A cluster that cannot hold that many copies fails the call.
 * Replicas are never lowered here: that is an operator's decision.
 */
export async function ensureStream(
  manager: JetStreamManager,
  config: Partial<StreamConfig> & { name: string },
  placement: JetStreamPlacement,
): Promise<void> {
  const existing = await manager.streams.info(config.name).catch((error: Error) => {
    if (/stream not found/i.test(error.message)) return null;
    throw error;
  });
  if (!existing) {
    try {
      await manager.streams.add({ ...config, ...placementConfig(placement) });
      return;
    } catch (error) {
      // Another replica created it between our look and our add: reconcile theirs.
      const raced = await manager.streams.info(config.name).catch(() => {
        throw error;
      });
      return reconcileReplicas(manager, raced.config, placement);
    }
  }
  await reconcileReplicas(manager, existing.config, placement);
}

/** Raises an existing stream's replicas (and sets its placement tags) to `placement`'s. */
export async function reconcileReplicas(manager: JetStreamManager, current: StreamConfig, placement: JetStreamPlacement): Promise<void> {
  if (current.num_replicas >= placement.replicas) return;
  logger.warn(`Stream ${current.name} has ${current.num_replicas} replica(s), ${placement.replicas} configured: updating it`);
  const updated = await manager.streams.update(current.name, { ...current, ...placementConfig(placement) });
  if (updated.config.num_replicas < placement.replicas)
    throw new Error(
      `stream ${current.name} kept ${updated.config.num_replicas} replica(s) of ${placement.replicas} asked (a single server holds one)`,
    );
  logger.log(`Stream ${current.name} now has ${updated.config.num_replicas} replicas`);
}
