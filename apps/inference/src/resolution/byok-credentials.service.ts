import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type ResolvedByokCredential, ByokResolve, ByokChanged } from '@gw/contracts';
import { EventInvalidatedCache, ResilientNatsConnection, RpcClient } from '@gw/messaging';
import type { RoutableModel } from '../catalog/catalog-snapshot.js';
import { workspaceModelsOf } from '../catalog/workspace-models.js';
import { workspaceIdOf } from './workspace-events.js';

/** What a workspace brings to routing: its enabled credentials and its own models, bound to them. */
export interface WorkspaceRouting {
  credentials: ResolvedByokCredential[];
  models: ReadonlyMap<string, RoutableModel>;
}

const TTL_MS = 30_000;
const MAX_WORKSPACES = 10_000;
/** Management answers from memory and one indexed read; more than this and routing waits too long. */
const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * A workspace's usable BYOK credentials (decrypted) and its own models, asked of management over
 * NATS in one reply and kept in this replica's memory only, for at most 30 s; `events.byok.changed`
 * drops a workspace's entry at once. Concurrent misses share one request. If management cannot be reached when
 * an entry has expired, the last known credentials are used rather than failing the request
 * (staleOnFailure); with nothing known, the request fails: routing without
 * knowing a workspace's `is_byok_only` keys could bill it for calls it wanted on its own key.
 * The keys are never logged.
 */
@Injectable()
export class ByokCredentialsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ByokCredentialsService.name);
  private readonly cache: EventInvalidatedCache<string, WorkspaceRouting>;

  constructor(
    private readonly rpc: RpcClient,
    private readonly nats: ResilientNatsConnection,
  ) {
    this.cache = new EventInvalidatedCache<string, WorkspaceRouting>({
      max: MAX_WORKSPACES,
      ttlMs: TTL_MS,
      staleOnFailure: true,
      lookup: async (workspaceId) => {
        const reply = await this.rpc.send(ByokResolve, { workspaceId }, RESOLVE_TIMEOUT_MS);
        const { models, skipped } = await workspaceModelsOf(workspaceId, reply.models ?? []);
        if (skipped.length > 0) this.logger.warn(`Workspace ${workspaceId}: models not routable here: ${skipped.join(', ')}`);
        return { value: { credentials: reply.credentials ?? [], models } };
      },
      invalidatedBy: ByokChanged.subject,
      invalidate: (message, entries) => {
        const workspaceId = workspaceIdOf(message);
        if (workspaceId) entries.delete(workspaceId);
      },
    });
  }

  onModuleInit(): void {
    this.cache.listen(this.nats.connection);
  }

  onModuleDestroy(): void {
    this.cache.close();
  }

  async forWorkspace(workspaceId: string): Promise<ResolvedByokCredential[]> {
    return (await this.routingOf(workspaceId)).credentials;
  }

  async routingOf(workspaceId: string): Promise<WorkspaceRouting> {
    try {
      return (await this.cache.fetch(workspaceId)) ?? { credentials: [], models: new Map() };
    } catch (error) {
      this.logger.warn(`BYOK credentials of workspace ${workspaceId} could not be resolved: ${(error as Error).message}`);
      throw error;
    }
  }
}
