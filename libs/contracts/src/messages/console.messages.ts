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

/**
 * Gateway -> management: an admin signed in to the console with a management key. The gateway
 * sends the presented key's hash (never the key); management checks that key as the API would
 * (a management key, enabled, unexpired, its creator still in its workspace) and stores the
 * session's key (`key_hash`) for that user in that workspace, expiring no later than the
 * presented key.
 */
export class ConsoleSessionOpenWithKeyRequest {
  @Matches(/^[0-9a-f]{64}$/)
  presented_key_hash!: string;

  @Matches(/^[0-9a-f]{64}$/)
  key_hash!: string;

  @IsISO8601()
  expires_at!: string;
}

/**
 * Gateway -> management: an operator signed in to the console (`OPERATOR_API_KEYS`). The
 * operator is no user, so the session is a row of its own (`key_hash`: the session's derived
 * secret, hashed), checked on every call and deleted by logout.
 */
export class ConsoleOperatorSessionRequest {
  @Matches(/^[0-9a-f]{64}$/)
  key_hash!: string;

  @IsString()
  @MaxLength(64)
  operator!: string;

  /** Open: when the session ends at the latest. */
  @IsOptional()
  @IsISO8601()
  expires_at?: string;

  /** End: every session of this operator, not only this one. */
  @IsOptional()
  @IsBoolean()
  everywhere?: boolean;
}

/** Open and check: whether the session is live; end: how many sessions were removed. */
export interface ConsoleOperatorSessionReply {
  live: boolean;
  ended: number;
}
