import { SUBJECTS } from '../subjects.js';

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

const NONE: Tenancy = { actsFor: 'none' };
const GATEWAY: Tenancy = { actsFor: 'gateway' };
const OPERATOR: Tenancy = { actsFor: 'operator' };
const PRINCIPAL: Tenancy = { actsFor: 'principal' };
const PRINCIPAL_OR_GRANT: Tenancy = { actsFor: 'principal', batchGrant: true };
const WORKSPACE_OR_GRANT: Tenancy = { actsFor: 'workspace', batchGrant: true };
const REQUEST: Tenancy = { actsFor: 'request' };

const m = SUBJECTS.management;
const i = SUBJECTS.inference;
const b = SUBJECTS.batch;
const s = SUBJECTS.internSigning;

/** Every request-reply subject; `message-tenancy.spec.ts` holds it equal to the bus's route table. */
export const MESSAGE_TENANCY: Readonly<Record<string, Tenancy>> = {
  [m.health]: NONE,
  // The source of principals: what it answers is what the gateway then signs.
  [m.authResolve]: GATEWAY,
  [m.keysList]: PRINCIPAL,
  [m.keysGet]: PRINCIPAL,
  [m.keysCreate]: PRINCIPAL,
  [m.keysUpdate]: PRINCIPAL,
  [m.keysDelete]: PRINCIPAL,
  [m.keysDeleteForIntern]: REQUEST,
  // Batch reads the balance of the workspace that made a batch, for its cost guard.
  [m.creditsGet]: PRINCIPAL_OR_GRANT,
  [m.creditsAdd]: PRINCIPAL,
  [m.presetsCreateVersion]: PRINCIPAL,
  [m.presetsList]: PRINCIPAL,
  [m.presetsGet]: PRINCIPAL,
  [m.presetsVersionsList]: PRINCIPAL,
  [m.presetsVersionGet]: PRINCIPAL,
  [m.presetsResolve]: WORKSPACE_OR_GRANT,
  [m.byokCreate]: PRINCIPAL,
  [m.byokList]: PRINCIPAL,
  [m.byokGet]: PRINCIPAL,
  [m.workspaceModelsCall]: PRINCIPAL,
  [m.byokUpdate]: PRINCIPAL,
  [m.byokDelete]: PRINCIPAL,
  [m.byokResolve]: WORKSPACE_OR_GRANT,
  [m.spendReserve]: WORKSPACE_OR_GRANT,
  [m.identityGet]: PRINCIPAL,
  [m.identityUnlink]: PRINCIPAL,
  [m.identityOidcStart]: PRINCIPAL,
  // The OIDC state and the console's verified ID token are the proof; no key exists yet.
  [m.identityOidcCallback]: GATEWAY,
  [m.consoleSessionOpen]: GATEWAY,
  [m.consoleSessionEnd]: GATEWAY,
  // The presented key's hash is checked by management itself, as the auth path would.
  [m.consoleSessionOpenWithKey]: GATEWAY,
  // Operators are no principal: the gateway checked the operator key.
  [m.consoleOperatorSessionOpen]: GATEWAY,
  [m.consoleOperatorSessionCheck]: GATEWAY,
  [m.consoleOperatorSessionEnd]: GATEWAY,
  [m.workspacesCall]: PRINCIPAL,
  [m.guardrailsCall]: PRINCIPAL,
  [m.auditLogList]: PRINCIPAL,

  [i.byokTest]: PRINCIPAL,
  [i.health]: NONE,
  [i.chatCreate]: PRINCIPAL_OR_GRANT,
  [i.chatStream]: PRINCIPAL,
  [i.messagesCreate]: PRINCIPAL_OR_GRANT,
  [i.messagesStream]: PRINCIPAL,
  [i.messagesCountTokens]: PRINCIPAL,
  [i.responsesCreate]: PRINCIPAL_OR_GRANT,
  [i.responsesStream]: PRINCIPAL,
  [i.generateContentCreate]: PRINCIPAL,
  [i.generateContentStream]: PRINCIPAL,
  [i.generateContentCount]: PRINCIPAL,
  [i.embeddingsCreate]: PRINCIPAL_OR_GRANT,
  [i.modelsList]: PRINCIPAL,
  [i.generationsGet]: PRINCIPAL,
  [i.generationsList]: PRINCIPAL,
  [i.analyticsQuery]: PRINCIPAL,
  [i.analyticsActivity]: PRINCIPAL,
  [i.generationsContent]: PRINCIPAL,
  [i.contentLoggingGet]: PRINCIPAL,
  [i.contentLoggingSet]: PRINCIPAL,
  [i.batchesNativeSubmit]: PRINCIPAL_OR_GRANT,
  [i.batchesNativeStatus]: PRINCIPAL_OR_GRANT,
  [i.batchesNativeCancel]: PRINCIPAL_OR_GRANT,
  [i.batchesNativeDelete]: PRINCIPAL_OR_GRANT,
  // Prices and models of every workspace: the operator's, signed as such.
  [i.adminCatalogRead]: OPERATOR,
  [i.adminCatalogChange]: OPERATOR,

  [b.health]: NONE,
  [b.batchesCreate]: { actsFor: 'principal', issuesGrant: true, batchGrant: true },
  [b.batchesAppend]: PRINCIPAL,
  [b.batchesSubmit]: PRINCIPAL,
  [b.batchesAbort]: PRINCIPAL,
  [b.batchesList]: PRINCIPAL,
  [b.batchesGet]: PRINCIPAL,
  [b.batchesResults]: PRINCIPAL,
  [b.batchesCancel]: PRINCIPAL,
  [b.batchesDelete]: PRINCIPAL,
  [b.filesCreate]: PRINCIPAL,
  [b.filesAppend]: PRINCIPAL,
  [b.filesComplete]: PRINCIPAL,
  [b.filesAbort]: PRINCIPAL,
  [b.filesList]: PRINCIPAL,
  [b.filesGet]: PRINCIPAL,
  [b.filesContent]: PRINCIPAL,
  [b.filesDelete]: PRINCIPAL,

  [s.health]: NONE,
  [s.list]: PRINCIPAL,
  [s.get]: PRINCIPAL,
  [s.create]: PRINCIPAL,
  [s.update]: PRINCIPAL,
  [s.delete]: PRINCIPAL,
  [s.exists]: REQUEST,
  [s.daemonSign]: PRINCIPAL,
  [s.daemonJwks]: NONE,
};

/** How `subject` is authorized; undefined for a subject outside the contracts (specs, benches). */
export function tenancyOf(subject: string): Tenancy | undefined {
  return BY_SUBJECT.get(subject);
}

const BY_SUBJECT = new Map(Object.entries(MESSAGE_TENANCY));
