import { REQUEST_DECLARATIONS } from './message-routes.js';

/*
 * For whom each request on the bus acts, so the receiving service knows what the signed principal
 * the gateway attached must name (the `Gw-Principal` header, libs/messaging/src/principal). A NATS
 * seed alone then reaches no tenant: the services check the signature, not who published.
 */

export type ActsFor =
  /** No tenant and nothing to prove: health, the daemons' public keys. */
  | 'none'
  /**
   * The gateway itself, before any key: the key lookup that makes principals, sign-ins whose
   * proof (an ID token, the OIDC state) it checked. Signed as such, so a seed cannot send them.
   */
  | 'gateway'
  /** The platform's operator (the gateway checked the operator credential): no workspace. */
  | 'operator'
  /** `payload.principal`: its workspace, key and kind (and intern) must be the signed ones. */
  | 'principal'
  /** `payload.workspaceId` (and `payload.keyHash` when present): a service asks for the request it serves. */
  | 'workspace'
  /**
   * Any principal the gateway signed for this request: a service's follow-up of a change an
   * organization's management key may make in another workspace of its organization.
   */
  | 'request';

export interface Tenancy {
  actsFor: ActsFor;
  /**
   * A batch's grant is taken too: the batch service runs lines (and everything they need)
   * hours after the request that made the batch, as the key that made it.
   */
  batchGrant?: boolean;
  /** The gateway signs a batch grant here, not a request's principal: the batch keeps it for its lines. */
  issuesGrant?: boolean;
}

/** Every request-reply subject's tenancy, from its declaration (message-routes.ts). */
export const MESSAGE_TENANCY: Readonly<Record<string, Tenancy>> = Object.fromEntries(
  Object.values(REQUEST_DECLARATIONS).flatMap((group) => Object.values(group).map(({ subject, tenancy }) => [subject, tenancy])),
);

/** How `subject` is authorized; undefined for a subject outside the contracts (specs, benches). */
export function tenancyOf(subject: string): Tenancy | undefined {
  return BY_SUBJECT.get(subject);
}

const BY_SUBJECT = new Map(Object.entries(MESSAGE_TENANCY));
