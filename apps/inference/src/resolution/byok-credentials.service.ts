import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type ResolvedByokCredential, ByokResolve, ByokChanged } from '@gw/contracts';
import { EventInvalidatedCache, ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { workspaceIdOf } from './workspace-events.js';

const TTL_MS = 30_000;
const MAX_WORKSPACES = 10_000;
/** Management answers from memory and one indexed read; more than this and routing waits too long. */
const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * A workspace's usable BYOK credentials (decrypted), asked of management over NATS and kept
 * in this replica's memory only, for at most 30 s; `events.byok.changed` drops a workspace's
 * entry at once. Concurrent misses share one request. If management cannot be reached when
 * an entry has expired, the last known credentials are used rather than failing the request
 * (staleOnFailure); with nothing known, the request fails: routing without
 * knowing a workspace's `is_byok_only` keys could bill it for calls it wanted on its own key.
 * The keys are never logged.
 */
@Injectable()
export class ByokCredentialsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ByokCredentialsService.name);
  private readonly cache: EventInvalidatedCache<string, ResolvedByokCredential[]>;

  constructor(
    private readonly rpc: RpcClient,
    private readonly nats: ResilientNatsConnection,
  ) {
    this.cache = new EventInvalidatedCache<string, ResolvedByokCredential[]>({
      max: MAX_WORKSPACES,
      ttlMs: TTL_MS,
      staleOnFailure: true,
      lookup: async (workspaceId) => {
        const reply = await this.rpc.send(ByokResolve, { workspaceId }, RESOLVE_TIMEOUT_MS);
        return { value: reply.credentials ?? [] };
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
    try {
      return (await this.cache.fetch(workspaceId)) ?? [];
    } catch (error) {
      this.logger.warn(`BYOK credentials of workspace ${workspaceId} could not be resolved: ${(error as Error).message}`);
      throw error;
    }
  }
}
