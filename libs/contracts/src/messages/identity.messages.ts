import { Type } from 'class-transformer';
import { IsDefined, IsString, MaxLength, ValidateNested } from 'class-validator';
import { Principal } from '../principal.js';

/** Gateway -> management: read, start linking, or unlink the caller's personal identity. */
export class IdentityRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;
}

/**
 * Gateway -> management: the issuer redirected the browser back. `query` is the callback's
 * query string exactly as received (`code`, `state`, `iss`, or `error`...): the OIDC client
 * checks it against the login started, so nothing is picked out of it on the way.
 */
export class OidcCallbackRequest {
  @IsString()
  @MaxLength(8192)
  query!: string;
}

/** The linked OIDC identity: the pair (issuer, subject) is what signatures name. */
export interface LinkedIdentityView {
  issuer: string;
  subject: string;
  linked_at: string;
  /** False when the gateway has since been configured with another issuer: the link no longer signs; log in again. */
  current_issuer: boolean;
}

/** `GET /v1/identity`: who the key belongs to, and whose identity its signatures carry. */
export interface IdentityView {
  user_id: string;
  email: string;
  name: string;
  workspace_id: string;
  key: { hash: string; kind: string };
  identity: LinkedIdentityView | null;
}

/** `POST /v1/identity/oidc/start`: open this URL in a browser; it is valid for `expires_in` seconds. */
export interface OidcStartView {
  authorization_url: string;
  expires_in: number;
}

/** What the callback linked (rendered by the gateway as a small HTML page). */
export interface OidcCallbackView {
  user_id: string;
  identity: LinkedIdentityView;
}
