import { IsBoolean, IsIn, IsOptional, IsString, IsUUID, Matches } from 'class-validator';

export const KEY_KINDS = ['management', 'standard', 'intern'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

export const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;

/**
 * Who is calling, as the gateway authenticated them. Every internal request carries it;
 * services authorize against it and never see the bearer secret.
 */
export class Principal {
  @IsUUID()
  workspaceId!: string;

  @Matches(KEY_HASH_PATTERN)
  keyHash!: string;

  @IsIn(KEY_KINDS)
  keyKind!: KeyKind;

  @IsUUID()
  userId!: string;

  @IsOptional()
  @IsString()
  internId?: string | null;

  @IsBoolean()
  hasPersonalIdentity!: boolean;
}
