import { sign, verify, type KeyObject } from 'node:crypto';
import type { KeyKind } from '@gw/contracts';
import type { RequestPrincipal } from '@gw/telemetry';

/** The NATS header of a request's signed principal. nats.js matches header names exactly. */
export const PRINCIPAL_HEADER = 'Gw-Principal';

/**
 * What the gateway signs, short keys to keep the header small: who (workspace, key, kind, the
 * key's intern), for which request, until when. The operator and the gateway itself sign with
 * empty workspace and key.
 */
export interface PrincipalClaims {
  /** Workspace id; '' for the operator. */
  w: string;
  /** Key hash; '' for the operator. */
  k: string;
  /** A key's kind, or the operator, or the gateway itself (requests made before any key). */
  t: KeyKind | 'operator' | 'gateway';
  /** The intern of an intern key. */
  i?: string;
  /** The request id it is bound to (`x-request-id`); absent in a batch grant. */
  r?: string;
  /** Set on a batch grant: bound to no request, taken only where a batch calls. */
  g?: 1;
  /**
   * A tenant's token's nonce (`newPrincipalNonce`): its request's generation ids are
   * `gen-<n>-<slot>`, a grant's batch id is derived from it; usage events must match.
   */
  n?: string;
  /** Set on a hit grant: bound to no request, taken only on the usage event of a response-cache hit the gateway answered. */
  h?: 1;
  /** Expiry, ms since the epoch. */
  e: number;
}

/** `<base64url claims JSON>.<base64url Ed25519 signature of the first part>`. */
export function signPrincipal(claims: PrincipalClaims, key: KeyObject): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${body}.${sign(null, Buffer.from(body, 'latin1'), key).toString('base64url')}`;
}

/** The claims of a token one of `keys` signed; undefined when none did or it is malformed. */
export function openPrincipal(token: string, keys: readonly KeyObject[]): PrincipalClaims | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  const body = Buffer.from(token.slice(0, dot), 'latin1');
  const signature = Buffer.from(token.slice(dot + 1), 'base64url');
  if (signature.length !== 64) return undefined;
  if (!keys.some((key) => verify(null, body, key, signature))) return undefined;
  return readPrincipalClaims(token);
}

/**
 * The claims of a token as the gateway wrote them, unverified: the one decoding of a token. Alone
 * it proves nothing; `openPrincipal` verifies first, and the consumers verify before billing.
 */
export function readPrincipalClaims(token: string): PrincipalClaims | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(token.slice(0, dot), 'base64url').toString()) as PrincipalClaims | null;
    return typeof claims === 'object' && claims !== null && typeof claims.e === 'number' ? claims : undefined;
  } catch {
    return undefined;
  }
}

/** A received token as its request's context keeps it: its claims decoded on first use, at most once per request. */
export function requestPrincipalOf(token: string): RequestPrincipal {
  return new ReceivedPrincipal(token);
}

/** Most requests a service serves mint no id: their token is passed on as it came, never decoded. */
class ReceivedPrincipal implements RequestPrincipal {
  private minted?: { nonce?: string; grant: boolean };

  constructor(readonly token: string) {}

  get nonce(): string | undefined {
    return this.read().nonce;
  }

  get grant(): boolean {
    return this.read().grant;
  }

  private read(): { nonce?: string; grant: boolean } {
    if (!this.minted) {
      const claims = readPrincipalClaims(this.token);
      this.minted = { nonce: typeof claims?.n === 'string' ? claims.n : undefined, grant: claims?.g === 1 };
    }
    return this.minted;
  }
}
