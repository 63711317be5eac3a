import type { PresetVersionView, PresetView } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { Preset, PresetVersion } from '../generated/prisma/client.js';

export function toPresetVersionView(version: PresetVersion): PresetVersionView {
  return {
    id: version.id,
    preset_id: version.presetId,
    version: version.version,
    config: version.config as Record<string, unknown>,
    system_prompt: version.systemPrompt,
    creator_id: version.creatorId,
    created_at: version.createdAt.toISOString(),
    updated_at: version.updatedAt.toISOString(),
  };
}

/** The preset object of spec §2.3 with its designated version inline. */
export function toPresetView(preset: Preset, designated: PresetVersion | null): PresetView {
  // Every committed preset has a designated version: the transaction that creates the
  // preset also creates version 1 and designates it.
  if (!designated) throw new GatewayError(500, `Preset ${preset.id} has no designated version`);
  return {
    id: preset.id,
    name: preset.name,
    slug: preset.slug,
    description: preset.description,
    status: preset.status,
    status_updated_at: preset.statusUpdatedAt?.toISOString() ?? null,
    created_at: preset.createdAt.toISOString(),
    updated_at: preset.updatedAt.toISOString(),
    creator_user_id: preset.creatorUserId,
    workspace_id: preset.workspaceId,
    designated_version_id: designated.id,
    designated_version: toPresetVersionView(designated),
  };
}
