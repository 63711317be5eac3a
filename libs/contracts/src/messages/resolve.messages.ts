import { IsOptional, IsUUID, Matches, MaxLength } from 'class-validator';

/** URL-safe preset slug (spec §2.3): lower-case letters, digits, `-` and `_`, 1..64. */
export const PRESET_SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Inference -> management: the designated version of a workspace's preset. 404 when none. */
export class PresetsResolveRequest {
  @IsUUID()
  workspaceId!: string;

  @Matches(PRESET_SLUG_PATTERN)
  @MaxLength(64)
  slug!: string;
}

export interface PresetResolveReply {
  slug: string;
  presetId: string;
  versionId: string;
  version: number;
  /** The persisted request fields (model, temperature, provider, ...); request fields override them. */
  config: Record<string, unknown>;
  /** Prepended as a system message when set. */
  systemPrompt: string | null;
}

/**
 * Inference -> management: every enabled BYOK credential of a workspace, decrypted, so
 * inference can cache them briefly (dropped on `events.byok.changed`) and choose per request
 * without a round trip. Only this reply carries the plaintext; no event or log line does.
 */
export class ByokResolveRequest {
  @IsUUID()
  workspaceId!: string;

  /** Only this provider's credentials, when set. */
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9-]*$/)
  provider?: string;
}

export interface ResolvedByokCredential {
  id: string;
  /** Catalog provider id the credential is for (e.g. `openai`, `anthropic`, `simulator-openai`). */
  provider: string;
  apiKey: string;
  isFallback: boolean;
  isByokOnly: boolean;
  isRequired: boolean;
  sortOrder: number;
  allowedApiKeyHashes: string[] | null;
  allowedModels: string[] | null;
  allowedUserIds: string[] | null;
}

/** A workspace's own model (WorkspaceModelDto as stored), bound to credentials of the same reply. */
export interface ResolvedWorkspaceModel {
  id: string;
  model: Record<string, unknown>;
}

export interface ByokResolveReply {
  credentials: ResolvedByokCredential[];
  /** The workspace's own models (absent when the request named a provider). */
  models?: ResolvedWorkspaceModel[];
}
