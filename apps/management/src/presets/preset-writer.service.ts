import { Injectable } from '@nestjs/common';
import { PresetChatRequestDto, type Principal, type PresetView, validateDto } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { randomUUID } from 'node:crypto';
import { Prisma } from '../generated/prisma/client.js';
import { actorOf, AuditWriter } from '../audit/audit-writer.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { extractPresetConfig, extractSystemPrompt } from './preset-config.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { requirePresetManager } from './preset-access.js';
import { toPresetView } from './preset.view.js';

type Tx = Prisma.TransactionClient;

interface NewVersion {
  workspaceId: string;
  slug: string;
  userId: string;
  config: Record<string, unknown>;
  systemPrompt: string | null;
}

/** Another writer took the version number this request was about to take. */
function versionConflict(slug: string): GatewayError {
  return new GatewayError(409, `Another version of preset "${slug}" was created at the same time; retry`, {
    errorType: 'precondition_failed',
    metadata: { reason: 'version_conflict', retryable: true },
  });
}

/** P2002: a unique index refused the row; P2025: the compare-and-set matched no row. */
function isRaceLoss(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && (error.code === 'P2002' || error.code === 'P2025');
}

/**
 * `POST /v1/presets/{slug}/chat/completions` (spec §3.3, §4.6): creates the preset at version
 * 1, or the next version of an existing one, and designates it. Optimistic concurrency
 * (docs/adr: presets-versioning): a writer reads the preset's `latest_version` N and takes
 * N + 1; the unique (preset_id, version) and (workspace_id, slug) indexes and a
 * compare-and-set on `latest_version` make the loser of a race fail with 409 instead of
 * waiting or writing a duplicate. Stored versions are therefore always 1..N without gaps.
 */
@Injectable()
export class PresetWriterService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly events: ManagementEventsPublisher,
    private readonly audit: AuditWriter,
  ) {}

  async createVersion(principal: Principal, slug: string, rawBody: Record<string, unknown>): Promise<PresetView> {
    requirePresetManager(principal);
    // Validated again here: whatever sent the message, no out-of-bounds config is stored.
    const body = await validateDto(PresetChatRequestDto, rawBody, 'keep');
    const request: NewVersion = {
      workspaceId: principal.workspaceId,
      slug,
      userId: principal.userId,
      config: extractPresetConfig(rawBody),
      systemPrompt: extractSystemPrompt(body.messages),
    };
    let view: PresetView;
    try {
      // The pool may be busy with other writers: wait for a connection rather than fail.
      view = await this.prisma.$transaction(
        async (tx) => {
          const { view, before } = await this.writeVersion(tx, request);
          await this.audit.record(tx, actorOf(principal), {
            workspaceId: request.workspaceId,
            action: before ? 'presets.version.create' : 'presets.create',
            resourceType: 'preset',
            resourceId: view.id,
            before,
            after: view,
          });
          return view;
        },
        { maxWait: 10_000, timeout: 10_000 },
      );
    } catch (error) {
      if (isRaceLoss(error)) throw versionConflict(slug);
      throw error;
    }
    this.events.presetsChanged(principal.workspaceId);
    return view;
  }

  /** The new view, and for a new version what the preset designated before. */
  private async writeVersion(tx: Tx, request: NewVersion): Promise<{ view: PresetView; before?: object }> {
    const existing = await tx.preset.findUnique({ where: { workspaceId_slug: { workspaceId: request.workspaceId, slug: request.slug } } });
    if (!existing) return { view: await this.createPreset(tx, request) };
    const before = { designated_version_id: existing.designatedVersionId, version: existing.latestVersion };
    return { view: await this.addVersion(tx, existing, request), before };
  }

  private async createPreset(tx: Tx, request: NewVersion): Promise<PresetView> {
    const now = new Date();
    const presetId = randomUUID();
    // A concurrent creator of the same slug makes this insert fail on (workspace_id, slug).
    await tx.preset.create({
      data: {
        id: presetId,
        workspaceId: request.workspaceId,
        slug: request.slug,
        name: request.slug,
        statusUpdatedAt: now,
        creatorUserId: request.userId,
        latestVersion: 1,
        createdAt: now,
        updatedAt: now,
      },
    });
    const version = await this.insertVersion(tx, presetId, 1, request, now);
    const preset = await tx.preset.update({ where: { id: presetId }, data: { designatedVersionId: version.id, updatedAt: now } });
    return toPresetView(preset, version);
  }

  private async addVersion(tx: Tx, existing: { id: string; latestVersion: number }, request: NewVersion): Promise<PresetView> {
    const now = new Date();
    const next = existing.latestVersion + 1;
    // A concurrent writer of the same number makes this insert fail on (preset_id, version)...
    const version = await this.insertVersion(tx, existing.id, next, request, now);
    // ...and the compare-and-set fails (P2025) if anyone moved latest_version meanwhile.
    const preset = await tx.preset.update({
      where: { id: existing.id, latestVersion: existing.latestVersion },
      data: { latestVersion: next, designatedVersionId: version.id, updatedAt: now },
    });
    return toPresetView(preset, version);
  }

  private insertVersion(tx: Tx, presetId: string, version: number, request: NewVersion, now: Date) {
    return tx.presetVersion.create({
      data: {
        id: randomUUID(),
        presetId,
        version,
        config: request.config as Prisma.InputJsonObject,
        systemPrompt: request.systemPrompt,
        creatorId: request.userId,
        createdAt: now,
        updatedAt: now,
      },
    });
  }
}
