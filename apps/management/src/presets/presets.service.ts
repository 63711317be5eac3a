import { Injectable } from '@nestjs/common';
import type { PageView, PresetResolveReply, PresetVersionView, PresetView, Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { PrismaService } from '../prisma/prisma.service.js';
import { presetNotFound, requirePresetManager } from './preset-access.js';
import { toPresetVersionView, toPresetView } from './preset.view.js';

interface Page {
  offset: number;
  limit: number;
}

/**
 * Reads of presets, always inside the caller's key's workspace: a slug of another workspace
 * is simply not found (404), as is an unknown one.
 */
@Injectable()
export class PresetsService {
  constructor(private readonly prisma: PrismaService) {}

  /** Most recently updated (= newest version) first, as OpenRouter lists them. */
  async list(principal: Principal, page: Page): Promise<PageView<PresetView>> {
    requirePresetManager(principal);
    const where = { workspaceId: principal.workspaceId };
    const [presets, total] = await Promise.all([
      this.prisma.preset.findMany({
        where,
        include: { designatedVersion: true },
        orderBy: [{ updatedAt: 'desc' }, { id: 'asc' }],
        skip: page.offset,
        take: page.limit,
      }),
      this.prisma.preset.count({ where }),
    ]);
    return { data: presets.map((preset) => toPresetView(preset, preset.designatedVersion)), total_count: total };
  }

  async get(principal: Principal, slug: string): Promise<PresetView> {
    requirePresetManager(principal);
    const preset = await this.prisma.preset.findUnique({
      where: { workspaceId_slug: { workspaceId: principal.workspaceId, slug } },
      include: { designatedVersion: true },
    });
    if (!preset) throw presetNotFound(slug);
    return toPresetView(preset, preset.designatedVersion);
  }

  /** Oldest first (version ascending). */
  async listVersions(principal: Principal, slug: string, page: Page): Promise<PageView<PresetVersionView>> {
    requirePresetManager(principal);
    const presetId = await this.presetIdOf(principal.workspaceId, slug);
    const [versions, total] = await Promise.all([
      this.prisma.presetVersion.findMany({ where: { presetId }, orderBy: { version: 'asc' }, skip: page.offset, take: page.limit }),
      this.prisma.presetVersion.count({ where: { presetId } }),
    ]);
    return { data: versions.map(toPresetVersionView), total_count: total };
  }

  async getVersion(principal: Principal, slug: string, version: number): Promise<PresetVersionView> {
    requirePresetManager(principal);
    const presetId = await this.presetIdOf(principal.workspaceId, slug);
    const found = await this.prisma.presetVersion.findUnique({ where: { presetId_version: { presetId, version } } });
    if (!found) throw GatewayError.notFound(`Preset "${slug}" has no version ${version}`);
    return toPresetVersionView(found);
  }

  /** Inference -> management: the designated version to apply to a request. */
  async resolve(workspaceId: string, slug: string): Promise<PresetResolveReply> {
    const preset = await this.prisma.preset.findUnique({
      where: { workspaceId_slug: { workspaceId, slug } },
      include: { designatedVersion: true },
    });
    const designated = preset?.designatedVersion;
    if (!preset || !designated) throw presetNotFound(slug);
    return {
      slug: preset.slug,
      presetId: preset.id,
      versionId: designated.id,
      version: designated.version,
      config: designated.config as Record<string, unknown>,
      systemPrompt: designated.systemPrompt,
    };
  }

  private async presetIdOf(workspaceId: string, slug: string): Promise<string> {
    const preset = await this.prisma.preset.findUnique({ where: { workspaceId_slug: { workspaceId, slug } }, select: { id: true } });
    if (!preset) throw presetNotFound(slug);
    return preset.id;
  }
}
