import type { CatalogStateView } from './http/catalog-admin.view.js';

export interface HealthReply {
  service: string;
  status: 'ok';
  /** Replica identity, so a caller can see load spread across a queue group. */
  instance: string;
  /**
   * This replica's JetStream consumers, by durable name: events moved to
   * DEAD_LETTERS and malformed messages terminated since it started, and events refused (dead-lettered)
   * because their principal did not prove the gateway authorised them.
   */
  consumers?: Record<string, { deadLettered: number; malformed: number; refused?: number }>;
  /** Inference: the catalog version this replica serves, and a newer one it could not load. */
  catalog?: CatalogStateView;
}
