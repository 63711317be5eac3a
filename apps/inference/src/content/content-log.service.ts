import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { KeyRing, openSecret, sealSecret } from '@gw/config';
import type { ContentLoggingView, GenerationContentView, Principal, SetContentLoggingDto } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { type GenerationContentDraft, prepareContent } from './generation-content.js';
import { KeptText } from './kept-text.js';

/** How long a replica trusts its copy of a workspace's setting: a change reaches every replica within it. */
const SETTING_TTL_MS = 5_000;
const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_BATCH = 5_000;

interface Setting {
  enabled: boolean;
  retentionDays: number;
  readAt: number;
}

/** What the ciphertexts are bound to: the generation and its workspace (GCM additional data). */
const contentContext = (generationId: string, workspaceId: string) => `content:${generationId}:${workspaceId}`;

/**
 * Content logging: a workspace's setting (off unless turned on), the capture of a generation's
 * prompt and completion when it is on (redacted, cut to size, sealed like BYOK secrets), the read
 * back, and the sweep of expired contents. Nothing is captured while CONTENT_KEKS is unset.
 */
@Injectable()
export class ContentLog implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ContentLog.name);
  private readonly ring: KeyRing | undefined;
  private readonly settings = new Map<string, Setting>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly prisma: PrismaService,
    @Inject(INFERENCE_ENV) private readonly env: InferenceEnv,
  ) {
    this.ring = env.CONTENT_KEKS ? KeyRing.fromEnv(env.CONTENT_KEKS) : undefined;
  }

  onApplicationBootstrap(): void {
    this.sweeper = setInterval(
      () => void this.sweep().catch((error: Error) => this.logger.warn(`Content sweep failed: ${error.message}`)),
      SWEEP_EVERY_MS,
    );
    this.sweeper.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  async view(principal: Principal): Promise<ContentLoggingView> {
    requireManagementKey(principal);
    return this.toView(await this.setting(principal.workspaceId, true));
  }

  async set(principal: Principal, change: SetContentLoggingDto): Promise<ContentLoggingView> {
    requireManagementKey(principal);
    if (change.enabled && !this.ring) {
      throw new GatewayError(409, 'Content logging is not available on this deployment (no CONTENT_KEKS to seal contents with)', {
        metadata: { reason: 'content_logging_unavailable', retryable: false },
      });
    }
    const max = this.env.GENERATION_CONTENT_RETENTION_DAYS;
    if (change.retention_days !== undefined && change.retention_days > max) {
      throw GatewayError.badRequest(`retention_days may be at most ${max} on this deployment`);
    }
    const current = await this.setting(principal.workspaceId, true);
    const retentionDays = change.retention_days ?? current.retentionDays;
    await this.prisma.pool.query(
      `INSERT INTO content_logging_settings (workspace_id, enabled, retention_days) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id) DO UPDATE SET enabled = excluded.enabled, retention_days = excluded.retention_days, updated_at = now()`,
      [principal.workspaceId, change.enabled, retentionDays],
    );
    const setting = { enabled: change.enabled, retentionDays, readAt: Date.now() };
    this.settings.set(principal.workspaceId, setting);
    return this.toView(setting);
  }

  /** True when the principal's workspace logs content (a stream then keeps its text as it goes). */
  async wanted(principal: Principal): Promise<boolean> {
    if (!this.ring) return false;
    return (await this.setting(principal.workspaceId, false).catch(() => ({ enabled: false }))).enabled;
  }

  /** Where a stream keeps its text as it goes, for a workspace that logs content (undefined otherwise: nothing is kept). */
  async keeper(principal: Principal): Promise<KeptText | undefined> {
    return (await this.wanted(principal)) ? new KeptText(this.env.GENERATION_CONTENT_MAX_BYTES) : undefined;
  }

  /**
   * Stores the generation's content when its workspace logs content. Never fails the generation:
   * a content that cannot be stored is logged and dropped.
   */
  async capture(principal: Principal, generationId: string, draft: () => GenerationContentDraft): Promise<void> {
    if (!this.ring) return;
    try {
      const setting = await this.setting(principal.workspaceId, false);
      if (!setting.enabled) return;
      const prepared = prepareContent(draft(), this.env.GENERATION_CONTENT_MAX_BYTES);
      const sealed = sealSecret(this.ring, prepared.json, contentContext(generationId, principal.workspaceId));
      await this.prisma.pool.query({
        name: 'inference_insert_generation_content',
        text: `INSERT INTO generation_contents (generation_id, workspace_id, key_hash, expires_at, truncated, redactions, encrypted,
                 wrapped_data_key, kek_version)
               VALUES ($1, $2, $3, now() + make_interval(days => $4), $5, $6, $7, $8, $9) ON CONFLICT (generation_id) DO NOTHING`,
        values: [
          generationId,
          principal.workspaceId,
          principal.keyHash,
          setting.retentionDays,
          prepared.truncated,
          prepared.redactions,
          Buffer.from(sealed.encryptedSecret),
          Buffer.from(sealed.wrappedDataKey),
          sealed.kekVersion,
        ],
      });
    } catch (error) {
      this.logger.warn(`Content of generation ${generationId} not stored: ${(error as Error).message}`);
    }
  }

  /** The stored content of a generation the caller may see (the caller checked visibility), or 404 `content_not_stored`. */
  async read(workspaceId: string, generationId: string): Promise<GenerationContentView> {
    const { rows } = await this.prisma.pool.query<{ encrypted: Buffer; wrapped_data_key: Buffer; kek_version: string }>({
      name: 'inference_select_generation_content',
      text: `SELECT encrypted, wrapped_data_key, kek_version FROM generation_contents
             WHERE generation_id = $1 AND workspace_id = $2 AND expires_at > now()`,
      values: [generationId, workspaceId],
    });
    const row = rows[0];
    if (!row || !this.ring) throw contentNotStored();
    const json = openSecret(
      this.ring,
      { encryptedSecret: new Uint8Array(row.encrypted), wrappedDataKey: new Uint8Array(row.wrapped_data_key), kekVersion: row.kek_version },
      contentContext(generationId, workspaceId),
    );
    const content = JSON.parse(json) as GenerationContentDraft;
    return { input: content.input, output: content.output, error: null };
  }

  /** Deletes expired contents in bounded batches (every replica may run it; they only share the work). */
  async sweep(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const { rowCount } = await this.prisma.pool.query(
        `DELETE FROM generation_contents WHERE generation_id IN
           (SELECT generation_id FROM generation_contents WHERE expires_at <= now() LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`,
      );
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < SWEEP_BATCH) return deleted;
    }
  }

  private async setting(workspaceId: string, fresh: boolean): Promise<Setting> {
    const cached = this.settings.get(workspaceId);
    if (cached && !fresh && Date.now() - cached.readAt < SETTING_TTL_MS) return cached;
    const { rows } = await this.prisma.pool.query<{ enabled: boolean; retention_days: number }>({
      name: 'inference_select_content_setting',
      text: 'SELECT enabled, retention_days FROM content_logging_settings WHERE workspace_id = $1',
      values: [workspaceId],
    });
    const setting = {
      enabled: rows[0]?.enabled ?? false,
      retentionDays: Math.min(
        rows[0]?.retention_days ?? this.env.GENERATION_CONTENT_RETENTION_DAYS,
        this.env.GENERATION_CONTENT_RETENTION_DAYS,
      ),
      readAt: Date.now(),
    };
    this.settings.set(workspaceId, setting);
    return setting;
  }

  private toView(setting: Setting): ContentLoggingView {
    return {
      enabled: setting.enabled,
      retention_days: setting.retentionDays,
      max_retention_days: this.env.GENERATION_CONTENT_RETENTION_DAYS,
      max_bytes: this.env.GENERATION_CONTENT_MAX_BYTES,
      available: this.ring !== undefined,
    };
  }
}

function contentNotStored(): GatewayError {
  return new GatewayError(404, 'The content of this generation was not stored: content logging was off for this workspace, or it expired', {
    metadata: { reason: 'content_not_stored', retryable: false },
  });
}

function requireManagementKey(principal: Principal): void {
  if (principal.keyKind !== 'management') {
    throw new GatewayError(403, 'Only management keys may change content logging', {
      errorType: 'permission_denied',
      metadata: { reason: 'management_key_required' },
    });
  }
}
