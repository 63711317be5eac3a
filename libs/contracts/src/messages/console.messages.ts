import { IsBoolean, IsISO8601, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';

/**
 * Gateway -> management: a person signed in to the console with the deployment's OIDC issuer.
 * The gateway verified the ID token; management finds the user linked to (issuer, subject) and
 * stores a key with `key_hash` (the session's credential, derived by the gateway, never sent) that
 * expires with the session.
 */
export class ConsoleSessionOpenRequest {
  @IsString()
  @MaxLength(2048)
  issuer!: string;

  @IsString()
  @MaxLength(255)
  subject!: string;

  @Matches(/^[0-9a-f]{64}$/)
  key_hash!: string;

  @IsISO8601()
  expires_at!: string;
}

/** Who signed in: the console shows pages by role, the API decides by the session key's kind. */
export interface ConsoleSessionView {
  user_id: string;
  email: string;
  name: string;
  workspace_id: string;
  /** The workspace role (owner or member today; the workspaces work may add admin). */
  role: string;
  key_kind: 'management' | 'standard';
}

/** Gateway -> management: end one console session (its key), or every console session of its user. */
export class ConsoleSessionEndRequest {
  @Matches(/^[0-9a-f]{64}$/)
  key_hash!: string;

  @IsUUID()
  user_id!: string;

  @IsOptional()
  @IsBoolean()
  everywhere?: boolean;
}

/** The session keys removed: the gateway drops them from its auth cache at once. */
export interface ConsoleSessionEndReply {
  changedKeyHashes: string[];
}
