import type { BusUser } from '../bus-permissions.js';
import type { Tenancy } from './message-tenancy.js';

/*
 * One declaration per message on the bus: its subject, who may send it (the group it sits in
 * serves it), for whom it acts and whether its receiver validates it again. `subjects.ts`, the
 * bus permissions and the tenancy table are derived from here; the catalog (`messages.ts`) adds
 * the payload class and the reply type. Plain data, no decorators: `nats-config.ts permissions`
 * loads it without class-validator. Subjects are not versioned: a change is additive only.
 */

export interface RequestDeclaration<Subject extends string = string> {
  readonly subject: Subject;
  /** Who may send the request. */
  readonly callers: readonly BusUser[];
  readonly tenancy: Tenancy;
  /**
   * The payload is not validated again on receipt: only for subjects whose every caller (`callers`,
   * enforced by the bus permissions) built or validated it with the catalog's class.
   */
  readonly trusted?: boolean;
}

export interface EventDeclaration<Subject extends string = string> {
  readonly subject: Subject;
  readonly publishers: readonly BusUser[];
  readonly subscribers: readonly BusUser[];
  /** Published through JetStream (its grants in `JETSTREAM_GRANTS`), not core NATS. */
  readonly jetStream?: boolean;
}

const NONE: Tenancy = { actsFor: 'none' };
const GATEWAY: Tenancy = { actsFor: 'gateway' };
const OPERATOR: Tenancy = { actsFor: 'operator' };
const PRINCIPAL: Tenancy = { actsFor: 'principal' };
const PRINCIPAL_OR_GRANT: Tenancy = { actsFor: 'principal', batchGrant: true };
const WORKSPACE_OR_GRANT: Tenancy = { actsFor: 'workspace', batchGrant: true };
const REQUEST: Tenancy = { actsFor: 'request' };

const gateway = ['api-gateway'] as const;
const gatewayAndBatch = ['api-gateway', 'batch'] as const;

function request<Subject extends string>(
  subject: Subject,
  callers: readonly BusUser[],
  tenancy: Tenancy,
  options: { trusted?: boolean } = {},
): RequestDeclaration<Subject> {
  return { subject, callers, tenancy, ...options };
}

/** The gateway's request for a key's principal: the common case. */
const forPrincipal = <Subject extends string>(subject: Subject, options: { trusted?: boolean } = {}) =>
  request(subject, gateway, PRINCIPAL, options);

/** Every request-reply (and streamed) message, grouped by the service whose queue group serves it. */
export const REQUEST_DECLARATIONS = {
  management: {
    health: request('management.health', gateway, NONE),
    // The source of principals: what it answers is what the gateway then signs.
    authResolve: request('management.auth.resolve', gateway, GATEWAY),
    keysList: forPrincipal('management.keys.list'),
    keysGet: forPrincipal('management.keys.get'),
    keysCreate: forPrincipal('management.keys.create'),
    keysUpdate: forPrincipal('management.keys.update'),
    keysDelete: forPrincipal('management.keys.delete'),
    /** Intern-signing -> management: an intern is being deleted; its own keys go first. */
    keysDeleteForIntern: request('management.keys.delete-for-intern', ['intern-signing'], REQUEST),
    /** Batch reads a batch's workspace balance as its stored principal, for the cost guard. */
    creditsGet: request('management.credits.get', gatewayAndBatch, PRINCIPAL_OR_GRANT),
    creditsAdd: forPrincipal('management.credits.add'),
    presetsCreateVersion: forPrincipal('management.presets.versions.create'),
    presetsList: forPrincipal('management.presets.list'),
    presetsGet: forPrincipal('management.presets.get'),
    presetsVersionsList: forPrincipal('management.presets.versions.list'),
    presetsVersionGet: forPrincipal('management.presets.versions.get'),
    /** Inference -> management: the designated version of a preset, to apply to a request. */
    presetsResolve: request('management.presets.resolve', ['inference'], WORKSPACE_OR_GRANT),
    byokCreate: forPrincipal('management.byok.create'),
    byokList: forPrincipal('management.byok.list'),
    byokGet: forPrincipal('management.byok.get'),
    byokUpdate: forPrincipal('management.byok.update'),
    byokDelete: forPrincipal('management.byok.delete'),
    /** Inference -> management: a workspace's usable BYOK credentials, decrypted. */
    byokResolve: request('management.byok.resolve', ['inference'], WORKSPACE_OR_GRANT),
    /**
     * Inference -> management: hold a call's worst-case charge before any provider is paid. Batch
     * asks for the smallest hold at a batch's creation: refused, the key has nothing left to spend.
     */
    spendReserve: request('management.spend.reserve', ['inference', 'batch'], WORKSPACE_OR_GRANT),
    /** Personal identity by OIDC login. */
    identityGet: forPrincipal('management.identity.get'),
    identityUnlink: forPrincipal('management.identity.unlink'),
    identityOidcStart: forPrincipal('management.identity.oidc.start'),
    /** The OIDC state is the proof; no key exists yet. */
    identityOidcCallback: request('management.identity.oidc.callback', gateway, GATEWAY),
    /** Workspaces, members, budgets, organization members (issue 31): the operation in the payload. */
    workspacesCall: forPrincipal('management.workspaces.call'),
    guardrailsCall: forPrincipal('management.guardrails.call'),
    auditLogList: forPrincipal('management.audit-log.list'),
    /** Gateway -> management, for an operator (the gateway checked the operator key): every audit row. */
    adminAuditLogList: request('management.admin.audit-log.list', gateway, OPERATOR),
    /** Inference -> management: the audit rows of stored catalog versions, relayed from its outbox; no tenant. */
    auditCatalogAppend: request('management.audit-log.catalog.append', ['inference'], NONE),
    /** A workspace's own models (issue 30 item 4): list, get, put, delete in the payload. */
    workspaceModelsCall: forPrincipal('management.workspace-models.call'),
    /** The web console's sign-in: the gateway verified the ID token (its OIDC client), no key exists yet. */
    consoleSessionOpen: request('management.console.session.open', gateway, GATEWAY),
    consoleSessionEnd: request('management.console.session.end', gateway, GATEWAY),
    /** A management key exchanged for a console session of its creator: management checks the key's hash itself. */
    consoleSessionOpenWithKey: request('management.console.session.open-with-key', gateway, GATEWAY),
    /** Operators' console sessions (no user, no key; the gateway checked the operator key): opened, checked, ended. */
    consoleOperatorSessionOpen: request('management.console.operator-session.open', gateway, GATEWAY),
    consoleOperatorSessionCheck: request('management.console.operator-session.check', gateway, GATEWAY),
    consoleOperatorSessionEnd: request('management.console.operator-session.end', gateway, GATEWAY),
  },
  inference: {
    health: request('inference.health', gateway, NONE),
    // The front doors: the gateway validated the body with the catalog's class. Batch runs its
    // lines as the principal the gateway authenticated when the batch was submitted.
    chatCreate: request('inference.chat.create', gatewayAndBatch, PRINCIPAL_OR_GRANT, { trusted: true }),
    /** Streaming chat: frames of chat-completion chunks. */
    chatStream: forPrincipal('inference.chat.stream', { trusted: true }),
    /** Anthropic's Messages API (`POST /v1/messages`): the same payloads as chat, an Anthropic body. */
    messagesCreate: request('inference.messages.create', gatewayAndBatch, PRINCIPAL_OR_GRANT, { trusted: true }),
    /** Streamed messages: Anthropic SSE events, already framed (`event: ...\ndata: ...\n\n`). */
    messagesStream: forPrincipal('inference.messages.stream', { trusted: true }),
    /** `POST /v1/messages/count_tokens`: a Messages body's input tokens, counted without a generation. */
    messagesCountTokens: forPrincipal('inference.messages.count-tokens', { trusted: true }),
    /** Responses API (`ChatCreateRequest` with a Responses body): the spec §2.6 response object. */
    responsesCreate: request('inference.responses.create', gatewayAndBatch, PRINCIPAL_OR_GRANT, { trusted: true }),
    /** Streamed Responses API: semantic events, already framed as SSE. */
    responsesStream: forPrincipal('inference.responses.stream', { trusted: true }),
    /** Google's generateContent (`POST /v1beta/models/{model}:generateContent`): a Gemini body with `model`; a Gemini response. */
    generateContentCreate: forPrincipal('inference.generate-content.create', { trusted: true }),
    /** Streamed generateContent: Gemini SSE frames, already framed (`data: ...\n\n`). */
    generateContentStream: forPrincipal('inference.generate-content.stream', { trusted: true }),
    /** `:countTokens`: a Gemini body with `model`; `{totalTokens}` (the provider's count on Google endpoints, else an estimate). */
    generateContentCount: forPrincipal('inference.generate-content.count', { trusted: true }),
    embeddingsCreate: request('inference.embeddings.create', gatewayAndBatch, PRINCIPAL_OR_GRANT),
    modelsList: forPrincipal('inference.models.list'),
    /** `POST /v1/byok/{id}/test`: one cheap upstream call with the credential (`ByokTestView`); never its secret back. */
    byokTest: forPrincipal('inference.byok.test'),
    /** `GET /v1/generation`: one stored generation of the caller's workspace (`GenerationView`). */
    generationsGet: forPrincipal('inference.generations.get'),
    /** `GET /v1/generations`: a page of the caller's workspace's generations, newest first (`GenerationListView`). */
    generationsList: forPrincipal('inference.generations.list'),
    /** `POST /v1/analytics/query`: sums of the caller's workspace's generations, from the hourly rollups (`AnalyticsResultView`). */
    analyticsQuery: forPrincipal('inference.analytics.query'),
    /** `GET /v1/activity`: per UTC date, model and endpoint, from the hourly rollups (`ActivityItemView[]`). */
    analyticsActivity: forPrincipal('inference.analytics.activity'),
    /** `GET /v1/generation/content`: a visible generation's stored prompt and completion, or 404 `content_not_stored`. */
    generationsContent: forPrincipal('inference.generations.content'),
    /** `GET` / `PUT /v1/content-logging`: the workspace's content logging setting (`ContentLoggingView`). */
    contentLoggingGet: forPrincipal('inference.content-logging.get'),
    contentLoggingSet: forPrincipal('inference.content-logging.set'),
    /**
     * Batch -> inference: a batch run natively at a provider's batch API, as the principal
     * the gateway gave batch at POST /v1/batches. Submit answers `{native: false}` when no endpoint can.
     */
    batchesNativeSubmit: request('inference.batches.native.submit', ['batch'], PRINCIPAL_OR_GRANT),
    batchesNativeStatus: request('inference.batches.native.status', ['batch'], PRINCIPAL_OR_GRANT),
    batchesNativeCancel: request('inference.batches.native.cancel', ['batch'], PRINCIPAL_OR_GRANT),
    batchesNativeDelete: request('inference.batches.native.delete', ['batch'], PRINCIPAL_OR_GRANT),
    /** Gateway -> inference, for the operator (never a workspace): read the model catalog, its versions. */
    adminCatalogRead: request('inference.admin.catalog.read', gateway, OPERATOR),
    /** Gateway -> inference, for the operator: change the catalog (a new version), or its dry run. */
    adminCatalogChange: request('inference.admin.catalog.change', gateway, OPERATOR),
  },
  batch: {
    health: request('batch.health', gateway, NONE),
    /**
     * Gateway -> batch: a batch upload opens hidden, gets its lines in chunks, then is submitted.
     * The gateway signs a batch grant here, which the batch keeps for its lines.
     */
    batchesCreate: request('batch.batches.create', gateway, { actsFor: 'principal', issuesGrant: true, batchGrant: true }),
    batchesAppend: forPrincipal('batch.batches.lines.append'),
    batchesSubmit: forPrincipal('batch.batches.submit'),
    /** An upload the gateway gave up on (invalid line, client gone): its rows are dropped. */
    batchesAbort: forPrincipal('batch.batches.abort'),
    batchesList: forPrincipal('batch.batches.list'),
    batchesGet: forPrincipal('batch.batches.get'),
    /** One page of results (JSONL lines), read by line number; the gateway streams pages to the client. */
    batchesResults: forPrincipal('batch.batches.results'),
    batchesCancel: forPrincipal('batch.batches.cancel'),
    batchesDelete: forPrincipal('batch.batches.delete'),
    /** Gateway -> batch: an upload opens hidden, gets its parts in order, then is completed. */
    filesCreate: forPrincipal('batch.files.create'),
    filesAppend: forPrincipal('batch.files.parts.append'),
    filesComplete: forPrincipal('batch.files.complete'),
    filesAbort: forPrincipal('batch.files.abort'),
    filesList: forPrincipal('batch.files.list'),
    filesGet: forPrincipal('batch.files.get'),
    /** One stored part of an uploaded file; a batch's output and error files are read through batchesResults. */
    filesContent: forPrincipal('batch.files.content'),
    filesDelete: forPrincipal('batch.files.delete'),
  },
  internSigning: {
    health: request('interns.health', gateway, NONE),
    list: forPrincipal('interns.list'),
    get: forPrincipal('interns.get'),
    create: forPrincipal('interns.create'),
    update: forPrincipal('interns.update'),
    delete: forPrincipal('interns.delete'),
    /** Management -> intern-signing: before binding a key to an intern. */
    exists: request('interns.exists', ['management'], REQUEST),
    daemonSign: forPrincipal('interns.daemon.sign', { trusted: true }),
    daemonJwks: request('interns.daemon.jwks', gateway, NONE),
  },
} as const;

const TRUSTED = new Set<string>(
  Object.values(REQUEST_DECLARATIONS).flatMap((group) =>
    Object.values(group)
      .filter((declaration: RequestDeclaration) => declaration.trusted)
      .map((declaration) => declaration.subject),
  ),
);

/** The message on `subject` is declared trusted: its receiver does not validate it again. */
export function isTrustedSubject(subject: string): boolean {
  return TRUSTED.has(subject);
}

function event<Subject extends string>(
  subject: Subject,
  publishers: readonly BusUser[],
  subscribers: readonly BusUser[],
): EventDeclaration<Subject> {
  return { subject, publishers, subscribers };
}

/** Every event: published, never answered. */
export const EVENT_DECLARATIONS = {
  /** JetStream (stream USAGE): one per generation, Nats-Msg-Id = generation id. */
  usageRecorded: { subject: 'events.usage.recorded', publishers: ['inference', 'batch', 'api-gateway'], subscribers: [], jetStream: true },
  /** JetStream (stream USAGE): one per failed request of an authenticated key, Nats-Msg-Id = its failure id. */
  requestFailed: { subject: 'events.usage.failed', publishers: ['api-gateway'], subscribers: [], jetStream: true },
  keysChanged: event('events.keys.changed', ['management'], ['api-gateway', 'inference']),
  /** Gateway -> management, batched: keys seen in use, for last_used_at. */
  keysUsed: event('events.keys.used', ['api-gateway'], ['management']),
  /** Inference -> management: a request ended; what its reservation held beyond its charges is free again. */
  spendReleased: event('events.spend.released', ['inference'], ['management']),
  /** Management -> inference: drop cached BYOK credentials / presets of a workspace. */
  byokChanged: event('events.byok.changed', ['management'], ['inference']),
  presetsChanged: event('events.presets.changed', ['management'], ['inference']),
  /** Gateway -> every inference replica (no queue group): the client of a call, streamed or not, went away. */
  callCancelled: event('events.inference.stream.cancelled', ['api-gateway'], ['inference']),
  /**
   * Gateway -> the one inference replica running a stream: credit for a flow-controlled stream,
   * on `events.inference.stream.credit.<replica>.<stream>` as the replica named it in
   * the stream's first message; one wildcard subscription per replica.
   */
  streamCredit: event('events.inference.stream.credit.>', ['api-gateway'], ['inference']),
  /** Inference -> every inference replica: catalog version N is stored; a replica behind loads it. */
  catalogChanged: event('events.catalog.changed', ['inference'], ['inference']),
  /** Inference -> every inference replica: an endpoint is cooled down (failing, or its provider asked to wait) until a time. */
  endpointCooled: event('events.routing.endpoint-cooled', ['inference'], ['inference']),
  /** Intern-signing -> every intern-signing replica: forget these interns (the sign path caches them). */
  internsDeleted: event('events.interns.deleted', ['intern-signing'], ['intern-signing']),
  /** Batch -> every batch replica: a batch was submitted, cancelled or started, or lines given back. */
  batchesChanged: event('events.batches.changed', ['batch'], ['batch']),
} as const satisfies Record<string, EventDeclaration>;
