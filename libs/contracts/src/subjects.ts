/**
 * Every NATS subject in the system. Renaming one is a breaking change between services
 * that may run different versions during a rolling deploy.
 */
export const SUBJECTS = {
  management: {
    health: 'management.health',
    authResolve: 'management.auth.resolve',
    keysList: 'management.keys.list',
    keysGet: 'management.keys.get',
    keysCreate: 'management.keys.create',
    keysUpdate: 'management.keys.update',
    keysDelete: 'management.keys.delete',
    /** Intern-signing -> management: an intern is being deleted; its own keys go first. */
    keysDeleteForIntern: 'management.keys.delete-for-intern',
    creditsGet: 'management.credits.get',
    creditsAdd: 'management.credits.add',
    presetsCreateVersion: 'management.presets.versions.create',
    presetsList: 'management.presets.list',
    presetsGet: 'management.presets.get',
    presetsVersionsList: 'management.presets.versions.list',
    presetsVersionGet: 'management.presets.versions.get',
    /** Inference -> management: the designated version of a preset, to apply to a request. */
    presetsResolve: 'management.presets.resolve',
    byokCreate: 'management.byok.create',
    byokList: 'management.byok.list',
    byokGet: 'management.byok.get',
    byokUpdate: 'management.byok.update',
    byokDelete: 'management.byok.delete',
    /** Inference -> management: a workspace's usable BYOK credentials, decrypted. */
    byokResolve: 'management.byok.resolve',
    /** Inference -> management: hold a call's worst-case charge before any provider is paid (ADR 0093). */
    spendReserve: 'management.spend.reserve',
    /** Personal identity by OIDC login (ADR 0037). */
    identityGet: 'management.identity.get',
    identityUnlink: 'management.identity.unlink',
    identityOidcStart: 'management.identity.oidc.start',
    identityOidcCallback: 'management.identity.oidc.callback',
    /** Workspaces, members, budgets, organization members (issue 31): the operation in the payload. */
    workspacesCall: 'management.workspaces.call',
    guardrailsCall: 'management.guardrails.call',
    auditLogList: 'management.audit-log.list',
    /** A workspace's own models (issue 30 item 4): list, get, put, delete in the payload. */
    workspaceModelsCall: 'management.workspace-models.call',
    /** The web console's sign-in: a session key for the user linked to an OIDC subject, and its end. */
    consoleSessionOpen: 'management.console.session.open',
    consoleSessionEnd: 'management.console.session.end',
    /** A management key exchanged for a console session of its creator. */
    consoleSessionOpenWithKey: 'management.console.session.open-with-key',
    /** Operators' console sessions (no user, no key): opened, checked on every call, ended. */
    consoleOperatorSessionOpen: 'management.console.operator-session.open',
    consoleOperatorSessionCheck: 'management.console.operator-session.check',
    consoleOperatorSessionEnd: 'management.console.operator-session.end',
  },
  inference: {
    health: 'inference.health',
    chatCreate: 'inference.chat.create',
    /** Streaming chat: Nest's multi-packet reply (isDisposed false per chunk, then true). */
    chatStream: 'inference.chat.stream',
    /** Anthropic's Messages API (`POST /v1/messages`): the same payloads as chat, an Anthropic body. */
    messagesCreate: 'inference.messages.create',
    /** Streamed messages: one packet per Anthropic SSE event, already framed (`event: ...\ndata: ...\n\n`). */
    messagesStream: 'inference.messages.stream',
    /** `POST /v1/messages/count_tokens`: a Messages body's input tokens, counted without a generation. */
    messagesCountTokens: 'inference.messages.count-tokens',
    /** Responses API (`ChatCreateRequest` with a Responses body): the spec §2.6 response object. */
    responsesCreate: 'inference.responses.create',
    /** Streamed Responses API (`ChatStreamRequest`): one packet per semantic event, already framed as SSE. */
    responsesStream: 'inference.responses.stream',
    /** Google's generateContent (`POST /v1beta/models/{model}:generateContent`): a Gemini body with `model`; a Gemini response. */
    generateContentCreate: 'inference.generate-content.create',
    /** Streamed generateContent: one packet per Gemini SSE frame, already framed (`data: ...\n\n`). */
    generateContentStream: 'inference.generate-content.stream',
    /** `:countTokens`: a Gemini body with `model`; `{totalTokens}` (the provider's count on Google endpoints, else an estimate). */
    generateContentCount: 'inference.generate-content.count',
    embeddingsCreate: 'inference.embeddings.create',
    modelsList: 'inference.models.list',
    /** `POST /v1/byok/{id}/test`: one cheap upstream call with the credential (`ByokTestView`); never its secret back. */
    byokTest: 'inference.byok.test',
    /** `GET /v1/generation`: one stored generation of the caller's workspace (`GenerationView`). */
    generationsGet: 'inference.generations.get',
    /** `GET /v1/generations`: a page of the caller's workspace's generations, newest first (`GenerationListView`). */
    generationsList: 'inference.generations.list',
    /** `POST /v1/analytics/query`: sums of the caller's workspace's generations, from the hourly rollups (`AnalyticsResultView`). */
    analyticsQuery: 'inference.analytics.query',
    /** `GET /v1/activity`: per UTC date, model and endpoint, from the hourly rollups (`ActivityItemView[]`). */
    analyticsActivity: 'inference.analytics.activity',
    /** `GET /v1/generation/content`: a visible generation's stored prompt and completion, or 404 `content_not_stored`. */
    generationsContent: 'inference.generations.content',
    /** `GET` / `PUT /v1/content-logging`: the workspace's content logging setting (`ContentLoggingView`). */
    contentLoggingGet: 'inference.content-logging.get',
    contentLoggingSet: 'inference.content-logging.set',
    /**
     * Batch -> inference: a batch run natively at a provider's batch API (ADR 0047,
     * messages/native-batches.messages.ts). Submit answers `{native: false}` when no endpoint can.
     */
    batchesNativeSubmit: 'inference.batches.native.submit',
    batchesNativeStatus: 'inference.batches.native.status',
    batchesNativeCancel: 'inference.batches.native.cancel',
    batchesNativeDelete: 'inference.batches.native.delete',
    /** Gateway -> inference, for an operator (never a workspace): read the model catalog, its versions. */
    adminCatalogRead: 'inference.admin.catalog.read',
    /** Gateway -> inference, for an operator: change the catalog (a new version), or its dry run. */
    adminCatalogChange: 'inference.admin.catalog.change',
  },
  batch: {
    health: 'batch.health',
    /** Gateway -> batch (ADR 0044): a batch upload opens hidden, gets its lines in chunks, then is submitted. */
    batchesCreate: 'batch.batches.create',
    batchesAppend: 'batch.batches.lines.append',
    batchesSubmit: 'batch.batches.submit',
    /** An upload the gateway gave up on (invalid line, client gone): its rows are dropped. */
    batchesAbort: 'batch.batches.abort',
    batchesList: 'batch.batches.list',
    batchesGet: 'batch.batches.get',
    /** One page of results (JSONL lines), read by line number; the gateway streams pages to the client. */
    batchesResults: 'batch.batches.results',
    batchesCancel: 'batch.batches.cancel',
    batchesDelete: 'batch.batches.delete',
    /** Gateway -> batch (ADR 0102): an upload opens hidden, gets its parts in order, then is completed. */
    filesCreate: 'batch.files.create',
    filesAppend: 'batch.files.parts.append',
    filesComplete: 'batch.files.complete',
    filesAbort: 'batch.files.abort',
    filesList: 'batch.files.list',
    filesGet: 'batch.files.get',
    /** One stored part of an uploaded file; a batch's output and error files are read through batchesResults. */
    filesContent: 'batch.files.content',
    filesDelete: 'batch.files.delete',
  },
  internSigning: {
    health: 'interns.health',
    list: 'interns.list',
    get: 'interns.get',
    create: 'interns.create',
    update: 'interns.update',
    delete: 'interns.delete',
    /** Management -> intern-signing: before binding a key to an intern. */
    exists: 'interns.exists',
    daemonSign: 'interns.daemon.sign',
    daemonJwks: 'interns.daemon.jwks',
  },
} as const;

export const EVENTS = {
  /** JetStream (stream USAGE): one per generation, Nats-Msg-Id = generation id. */
  usageRecorded: 'events.usage.recorded',
  keysChanged: 'events.keys.changed',
  /** Gateway -> management, batched: keys seen in use, for last_used_at. */
  keysUsed: 'events.keys.used',
  /** Inference -> management: a request ended; what its reservation held beyond its charges is free again. */
  spendReleased: 'events.spend.released',
  /** Management -> inference: drop cached BYOK credentials / presets of a workspace. */
  byokChanged: 'events.byok.changed',
  presetsChanged: 'events.presets.changed',
  /** Gateway -> every inference replica (no queue group): the client of a call, streamed or not, went away. */
  callCancelled: 'events.inference.stream.cancelled',
  /**
   * Gateway -> the one inference replica running a stream: credit for a flow-controlled stream
   * (ADR 0084), on `events.inference.stream.credit.<replica>.<stream>` as the replica named it in
   * the stream's first message; one wildcard subscription per replica.
   */
  streamCredit: 'events.inference.stream.credit.>',
  /** Inference -> every inference replica: catalog version N is stored; a replica behind loads it. */
  catalogChanged: 'events.catalog.changed',
  /** Inference -> every inference replica: an endpoint is cooled down (failing, or its provider asked to wait) until a time. */
  endpointCooled: 'events.routing.endpoint-cooled',
  /** Intern-signing -> every intern-signing replica: forget these interns (the sign path caches them). */
  internsDeleted: 'events.interns.deleted',
  /** Batch -> every batch replica: a batch was submitted, cancelled or started, or lines given back (ADR 0083). */
  batchesChanged: 'events.batches.changed',
} as const;

/** JetStream names. Durable consumers are per service, so each counts every event once. */
export const JETSTREAM = {
  usageStream: 'USAGE',
  usageSubjects: ['events.usage.>'],
  consumers: {
    managementUsage: 'management-usage',
    inferenceGenerations: 'inference-generations',
    batchUsage: 'batch-usage',
  },
  /** Messages a consumer gave up on after its delivery limit, on `dead.<stream>.<consumer>` (ADR 0032). */
  deadLetterStream: 'DEAD_LETTERS',
  deadLetterSubjectPrefix: 'dead',
} as const;

/** Queue group per service: replicas of one service share its subjects. */
export const QUEUE_GROUPS = {
  management: 'management',
  inference: 'inference',
  batch: 'batch',
  internSigning: 'intern-signing',
} as const;

export type ServiceName = keyof typeof QUEUE_GROUPS;

export const HEALTH_SUBJECTS: Record<ServiceName, string> = {
  management: SUBJECTS.management.health,
  inference: SUBJECTS.inference.health,
  batch: SUBJECTS.batch.health,
  internSigning: SUBJECTS.internSigning.health,
};
