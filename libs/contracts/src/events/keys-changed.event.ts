import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsISO8601, IsUUID, Matches, ValidateNested } from 'class-validator';
import { KEY_HASH_PATTERN } from '../principal.js';

/** Published by management whenever a key's state changes, so gateways drop cached auth. */
export class KeysChangedEvent {
  @IsArray()
  @ArrayMaxSize(1000)
  @Matches(KEY_HASH_PATTERN, { each: true })
  keyHashes!: string[];
}

export class KeyUsedEntry {
  @Matches(KEY_HASH_PATTERN)
  keyHash!: string;

  @IsISO8601({ strict: true })
  lastUsedAt!: string;
}

/** Gateway -> management, every few seconds: the keys used since the last flush, with when. */
export class KeysUsedEvent {
  @IsArray()
  @ArrayMaxSize(10000)
  @ValidateNested({ each: true })
  @Type(() => KeyUsedEntry)
  entries!: KeyUsedEntry[];
}

/** Management -> inference: cached BYOK credentials or presets of this workspace are stale. */
export class WorkspaceChangedEvent {
  @IsUUID()
  workspaceId!: string;
}
