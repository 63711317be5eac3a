import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type PresetResolveReply, PresetsResolve, PresetsChanged } from '@gw/contracts';
import { EventInvalidatedCache, ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { applyPreset, presetReferenceOf } from './preset-reference.js';
import { workspaceIdOf } from './workspace-events.js';

const TTL_MS = 10_000;
const MAX_PRESETS = 10_000;
const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * Applies a preset named by a chat body (preset-reference.ts). The designated version is
 * asked of management over NATS and cached for 10 s per (workspace, slug); an
 * `events.presets.changed` event drops the workspace's entries at once, so a new designated
 * version applies from the next request on this replica. Errors (404 unknown preset, 503
 * management unreachable) reach the caller as they are and are not cached.
 */
@Injectable()
export class PresetsService implements OnModuleInit, OnModuleDestroy {
  private readonly cache: EventInvalidatedCache<string, PresetResolveReply, { workspaceId: string; slug: string }>;

  constructor(
    private readonly rpc: RpcClient,
    private readonly nats: ResilientNatsConnection,
  ) {
    this.cache = new EventInvalidatedCache<string, PresetResolveReply, { workspaceId: string; slug: string }>({
      max: MAX_PRESETS,
      ttlMs: TTL_MS,
      lookup: async (_key, context) => ({ value: await this.rpc.send(PresetsResolve, context!, RESOLVE_TIMEOUT_MS) }),
      invalidatedBy: PresetsChanged.subject,
      // Keys are `<workspace>/<slug>`: the event names the workspace only.
      invalidate: (message, entries) => {
        const workspaceId = workspaceIdOf(message);
        if (!workspaceId) return;
        for (const key of [...entries.keys()]) if (key.startsWith(`${workspaceId}/`)) entries.delete(key);
      },
    });
  }

  onModuleInit(): void {
    this.cache.listen(this.nats.connection);
  }

  onModuleDestroy(): void {
    this.cache.close();
  }

  /**
   * The body unchanged when it names no preset, else the body with the preset applied and the
   * preset's id; `variables` fill the system prompt's `{{name}}` placeholders (a Responses stored prompt).
   */
  async apply(
    workspaceId: string,
    body: Record<string, unknown>,
    variables?: Readonly<Record<string, string>>,
  ): Promise<{ body: Record<string, unknown>; presetId?: string }> {
    const reference = presetReferenceOf(body);
    if (!reference) return { body };
    const preset = await this.cache.fetch(`${workspaceId}/${reference.slug}`, { workspaceId, slug: reference.slug });
    return { body: applyPreset(body, reference, preset!, variables), presetId: preset!.presetId };
  }
}
