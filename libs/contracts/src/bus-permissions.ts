import { EVENTS, JETSTREAM, SUBJECTS } from './subjects.js';

/*
 * Who may say what on the bus (ADR 0035). Every subject of `subjects.ts` has one entry here:
 * who serves it and who may call it, and the nats-server permissions of each service's user
 * are derived from these tables, never written by hand. A subject missing here fails
 * `bus-permissions.spec.ts`, so a new subject cannot ship without deciding who may use it.
 */

/** The services that connect to NATS, each with its own credentials (an nkey) and its own user. */
export const BUS_USERS = ['api-gateway', 'management', 'inference', 'batch', 'intern-signing'] as const;
export type BusUser = (typeof BUS_USERS)[number];

/**
 * Each user's reply inbox: `_INBOX.<user>.<random>`. A user may subscribe to its own inbox
 * only, so nobody else can read the replies it gets (inference's `management.byok.resolve`
 * replies carry decrypted BYOK secrets).
 */
export function inboxPrefix(user: BusUser): string {
  return `_INBOX.${user}`;
}

export interface RequestRoute {
  subject: string;
  /** The service whose queue group answers. */
  server: BusUser;
  /** Who may send the request. */
  callers: readonly BusUser[];
  /**
   * The request carries a `Principal` (acts for a key's workspace): only the gateway may send it,
   * and batch, which acts as the principal the gateway authenticated when the batch was submitted:
   * its lines (ADR 0045), its workspace balance (ADR 0046) and the native-batch subjects (ADR 0047).
   */
  principal: boolean;
}

const gateway = ['api-gateway'] as const;
const gatewayAndBatch = ['api-gateway', 'batch'] as const;
const b = SUBJECTS.batch;
const m = SUBJECTS.management;
const i = SUBJECTS.inference;
const s = SUBJECTS.internSigning;

/** Every request-reply subject. */
export const REQUEST_ROUTES: readonly RequestRoute[] = [
  { subject: m.health, server: 'management', callers: gateway, principal: false },
  // The source of principals: whoever may resolve keys may act for any workspace.
  { subject: m.authResolve, server: 'management', callers: gateway, principal: false },
  // Batch reads a batch's workspace balance as its stored principal, for the cost guard (ADR 0046).
  { subject: m.creditsGet, server: 'management', callers: gatewayAndBatch, principal: true },
  ...[
    m.keysList,
    m.keysGet,
    m.keysCreate,
    m.keysUpdate,
    m.keysDelete,
    m.creditsAdd,
    m.workspacesCall,
    m.guardrailsCall,
    m.auditLogList,
    m.workspaceModelsCall,
  ].map((subject) => ({
    subject,
    server: 'management' as const,
    callers: gateway,
    principal: true,
  })),
  // Personal identity (ADR 0037): the OIDC callback carries no principal (its state is the proof).
  ...[m.identityGet, m.identityUnlink, m.identityOidcStart].map((subject) => ({
    subject,
    server: 'management' as const,
    callers: gateway,
    principal: true,
  })),
  { subject: m.identityOidcCallback, server: 'management', callers: gateway, principal: false },
  // The console's sign-in: the gateway verified the ID token (its OIDC client), no key exists yet.
  ...[
    m.consoleSessionOpen,
    m.consoleSessionEnd,
    m.consoleSessionOpenWithKey,
    m.consoleOperatorSessionOpen,
    m.consoleOperatorSessionCheck,
    m.consoleOperatorSessionEnd,
  ].map((subject) => ({
    subject,
    server: 'management' as const,
    callers: gateway,
    principal: false,
  })),
  { subject: m.keysDeleteForIntern, server: 'management', callers: ['intern-signing'], principal: false },
  ...[m.presetsCreateVersion, m.presetsList, m.presetsGet, m.presetsVersionsList, m.presetsVersionGet].map((subject) => ({
    subject,
    server: 'management' as const,
    callers: gateway,
    principal: true,
  })),
  // Inference asks management for what one request needs, by workspace id: nothing else.
  { subject: m.presetsResolve, server: 'management', callers: ['inference'], principal: false },
  ...[m.byokCreate, m.byokList, m.byokGet, m.byokUpdate, m.byokDelete].map((subject) => ({
    subject,
    server: 'management' as const,
    callers: gateway,
    principal: true,
  })),
  { subject: m.byokResolve, server: 'management', callers: ['inference'], principal: false },
  // Inference reserves a call's worst case before paying a provider (ADR 0093).
  { subject: m.spendReserve, server: 'management', callers: ['inference'], principal: false },
  { subject: i.health, server: 'inference', callers: gateway, principal: false },
  ...[
    i.chatStream,
    i.messagesStream,
    i.messagesCountTokens,
    i.responsesStream,
    i.modelsList,
    i.byokTest,
    i.generateContentCreate,
    i.generateContentStream,
    i.generateContentCount,
  ].map((subject) => ({
    subject,
    server: 'inference' as const,
    callers: gateway,
    principal: true,
  })),
  // The workspace's own generation records and their rollups, read back.
  ...[
    i.generationsGet,
    i.generationsList,
    i.analyticsQuery,
    i.analyticsActivity,
    i.generationsContent,
    i.contentLoggingGet,
    i.contentLoggingSet,
  ].map((subject) => ({ subject, server: 'inference' as const, callers: gateway, principal: true })),
  // The operator's admin API (the gateway checked the operator credential): no workspace's principal.
  ...[i.adminCatalogRead, i.adminCatalogChange].map((subject) => ({
    subject,
    server: 'inference' as const,
    callers: gateway,
    principal: false,
  })),
  // Batch runs its lines as the principal the gateway authenticated when the batch was submitted (ADR 0045).
  ...[i.chatCreate, i.messagesCreate, i.responsesCreate, i.embeddingsCreate].map((subject) => ({
    subject,
    server: 'inference' as const,
    callers: gatewayAndBatch,
    principal: true,
  })),
  // The batch service acts for the workspace that created a batch, with the principal the gateway
  // gave it at POST /v1/batches (ADR 0047): native provider batches only.
  ...[i.batchesNativeSubmit, i.batchesNativeStatus, i.batchesNativeCancel, i.batchesNativeDelete].map((subject) => ({
    subject,
    server: 'inference' as const,
    callers: ['batch'] as const,
    principal: true,
  })),
  { subject: SUBJECTS.batch.health, server: 'batch', callers: gateway, principal: false },
  ...[
    b.batchesCreate,
    b.batchesAppend,
    b.batchesSubmit,
    b.batchesAbort,
    b.batchesList,
    b.batchesGet,
    b.batchesResults,
    b.batchesCancel,
    b.batchesDelete,
    b.filesCreate,
    b.filesAppend,
    b.filesComplete,
    b.filesAbort,
    b.filesList,
    b.filesGet,
    b.filesContent,
    b.filesDelete,
  ].map((subject) => ({ subject, server: 'batch' as const, callers: gateway, principal: true })),

  { subject: s.health, server: 'intern-signing', callers: gateway, principal: false },
  ...[s.list, s.get, s.create, s.update, s.delete, s.daemonSign].map((subject) => ({
    subject,
    server: 'intern-signing' as const,
    callers: gateway,
    principal: true,
  })),
  { subject: s.daemonJwks, server: 'intern-signing', callers: gateway, principal: false },
  { subject: s.exists, server: 'intern-signing', callers: ['management'], principal: false },
];

export interface EventRoute {
  subject: string;
  publishers: readonly BusUser[];
  subscribers: readonly BusUser[];
}

/** Core NATS events (fire and forget). */
export const EVENT_ROUTES: readonly EventRoute[] = [
  { subject: EVENTS.keysChanged, publishers: ['management'], subscribers: ['api-gateway', 'inference'] },
  { subject: EVENTS.internsDeleted, publishers: ['intern-signing'], subscribers: ['intern-signing'] },
  { subject: EVENTS.batchesChanged, publishers: ['batch'], subscribers: ['batch'] },
  { subject: EVENTS.keysUsed, publishers: ['api-gateway'], subscribers: ['management'] },
  { subject: EVENTS.spendReleased, publishers: ['inference'], subscribers: ['management'] },
  { subject: EVENTS.byokChanged, publishers: ['management'], subscribers: ['inference'] },
  { subject: EVENTS.presetsChanged, publishers: ['management'], subscribers: ['inference'] },
  { subject: EVENTS.catalogChanged, publishers: ['inference'], subscribers: ['inference'] },
  { subject: EVENTS.endpointCooled, publishers: ['inference'], subscribers: ['inference'] },
  { subject: EVENTS.callCancelled, publishers: ['api-gateway'], subscribers: ['inference'] },
  { subject: EVENTS.streamCredit, publishers: ['api-gateway'], subscribers: ['inference'] },
];

/** Dead letters of the JetStream consumers (`dead.<stream>.<consumer>`, issue 9 item 1). */
export const DEAD_LETTER_STREAM = 'DEAD_LETTERS';
export const DEAD_LETTER_SUBJECT_PREFIX = 'dead';
/** JetStream object store of request and reply bodies too large for one NATS message (issue 9 item 5). */
export const RPC_BODIES_BUCKET = 'RPC_BODIES';

export type JetStreamGrant =
  /** Creates the stream if missing (or updates its configuration) and reads its state. */
  | { kind: 'stream'; stream: string }
  /** Publishes to the stream's subjects (and gets the PubAck on its inbox). */
  | { kind: 'publish'; subjects: readonly string[] }
  /** Creates, reads and pulls from one durable consumer, and acknowledges its messages. */
  | { kind: 'consumer'; stream: string; durable: string }
  /** Uses the object store bucket: create, put, get, delete. */
  | { kind: 'objectStore'; bucket: string };

const deadLetters = (stream: string, durable: string): JetStreamGrant[] => [
  { kind: 'stream', stream: DEAD_LETTER_STREAM },
  { kind: 'publish', subjects: [`${DEAD_LETTER_SUBJECT_PREFIX}.${stream}.${durable}`] },
];
const usageConsumer = (durable: string): JetStreamGrant[] => [
  { kind: 'stream', stream: JETSTREAM.usageStream },
  { kind: 'consumer', stream: JETSTREAM.usageStream, durable },
  ...deadLetters(JETSTREAM.usageStream, durable),
];

/**
 * What each service does with JetStream; nothing else of `$JS.API` is open to it. The object
 * store of large bodies is for the services whose requests or replies can pass NATS's payload
 * limit: the gateway (client bodies up to 10 MB), inference (completions), management
 * (preset bodies are whole chat bodies, read back by presets.get and presets.resolve) and batch
 * (inference's answers to its lines).
 */
export const JETSTREAM_GRANTS: Record<BusUser, readonly JetStreamGrant[]> = {
  'api-gateway': [{ kind: 'objectStore', bucket: RPC_BODIES_BUCKET }],
  management: [...usageConsumer(JETSTREAM.consumers.managementUsage), { kind: 'objectStore', bucket: RPC_BODIES_BUCKET }],
  inference: [
    { kind: 'publish', subjects: [EVENTS.usageRecorded] },
    ...usageConsumer(JETSTREAM.consumers.inferenceGenerations),
    { kind: 'objectStore', bucket: RPC_BODIES_BUCKET },
  ],
  // Batch publishes one charge per finalized batch (ADR 0046); the replies of its lines (inference's) may be large bodies.
  batch: [
    { kind: 'stream', stream: JETSTREAM.usageStream },
    { kind: 'publish', subjects: [EVENTS.usageRecorded] },
    { kind: 'objectStore', bucket: RPC_BODIES_BUCKET },
  ],
  'intern-signing': [],
};

function jetStreamSubjects(grant: JetStreamGrant): string[] {
  const api = '$JS.API';
  switch (grant.kind) {
    case 'stream':
      return [`${api}.STREAM.INFO.${grant.stream}`, `${api}.STREAM.CREATE.${grant.stream}`, `${api}.STREAM.UPDATE.${grant.stream}`];
    case 'publish':
      return [...grant.subjects];
    case 'consumer': {
      const c = `${grant.stream}.${grant.durable}`;
      return [
        `${api}.CONSUMER.INFO.${c}`,
        `${api}.CONSUMER.CREATE.${c}`,
        `${api}.CONSUMER.CREATE.${c}.>`,
        `${api}.CONSUMER.DURABLE.CREATE.${c}`,
        `${api}.CONSUMER.MSG.NEXT.${c}`,
        `$JS.ACK.${c}.>`,
      ];
    }
    case 'objectStore': {
      const stream = `OBJ_${grant.bucket}`;
      return [
        `${api}.STREAM.INFO.${stream}`,
        `${api}.STREAM.CREATE.${stream}`,
        `${api}.STREAM.UPDATE.${stream}`,
        `${api}.STREAM.PURGE.${stream}`,
        `${api}.STREAM.MSG.GET.${stream}`,
        `${api}.STREAM.MSG.DELETE.${stream}`,
        `${api}.DIRECT.GET.${stream}`,
        `${api}.DIRECT.GET.${stream}.>`,
        // Readers use ephemeral ordered consumers with generated names.
        `${api}.CONSUMER.CREATE.${stream}`,
        `${api}.CONSUMER.CREATE.${stream}.>`,
        `${api}.CONSUMER.INFO.${stream}.>`,
        `${api}.CONSUMER.DELETE.${stream}.>`,
        `${api}.CONSUMER.MSG.NEXT.${stream}.>`,
        `$JS.FC.${stream}.>`,
        `$JS.ACK.${stream}.>`,
        `$O.${grant.bucket}.>`,
      ];
    }
  }
}

export interface UserPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
}

const unique = (subjects: string[]) => [...new Set(subjects)].sort();

/** The nats-server permissions of one service's user. */
export function busPermissions(user: BusUser): UserPermissions {
  const grants = JETSTREAM_GRANTS[user];
  const publish = [
    ...REQUEST_ROUTES.filter((route) => route.callers.includes(user)).map((route) => route.subject),
    ...EVENT_ROUTES.filter((route) => route.publishers.includes(user)).map((route) => route.subject),
    ...grants.flatMap(jetStreamSubjects),
    ...(grants.length > 0 ? ['$JS.API.INFO'] : []),
  ];
  const serves = REQUEST_ROUTES.filter((route) => route.server === user);
  // Replies, stream chunks and liveness heartbeats (ADR 0025) go to the inboxes of the users
  // this one serves, and only theirs. Not nats-server's `allow_responses`: it remembers every
  // delivered request's reply subject, and with the long lifetime streams need its pruning
  // made each request cost more as the table grew (ADR 0035). Reply subjects end in a random
  // token (RpcClient), so a service cannot answer a request it did not receive.
  const callers = [...new Set(serves.flatMap((route) => route.callers))];
  publish.push(...callers.map((caller) => `${inboxPrefix(caller)}.>`));
  const subscribe = [
    `${inboxPrefix(user)}.>`,
    ...serves.map((route) => route.subject),
    ...EVENT_ROUTES.filter((route) => route.subscribers.includes(user)).map((route) => route.subject),
  ];
  return {
    publish: { allow: unique(publish) },
    subscribe: { allow: unique(subscribe) },
  };
}

/** A user of nats-server's `authorization.users`: the services' are nkeys; tests may add others. */
export type NatsServerUser = { nkey: string; permissions: UserPermissions } | Record<string, unknown>;

/**
 * The `authorization` block of nats-server's configuration: one nkey user per service with
 * its permissions. Only public keys go in: the file is not secret. `extraUsers` are for tests
 * (a harness that plays several roles); production configurations have none.
 */
export function natsAuthorization(publicKeys: Record<BusUser, string>, extraUsers: NatsServerUser[] = []): { users: NatsServerUser[] } {
  return {
    users: [...BUS_USERS.map((user) => ({ nkey: publicKeys[user], permissions: busPermissions(user) })), ...extraUsers],
  };
}

export interface NatsServerConfigOptions {
  host: string;
  port: number;
  /** JetStream's store directory. */
  storeDir: string;
  publicKeys: Record<BusUser, string>;
  extraUsers?: NatsServerUser[];
  /** Server TLS (clients then connect with `tls://`): PEM files. */
  tls?: { certFile: string; keyFile: string; caFile?: string };
  /** Largest message the server accepts, in bytes (its default is 1 MB). */
  maxPayload?: number;
}

/**
 * A whole nats-server configuration (JSON, which nats-server's configuration format accepts):
 * what `npm run up` and the tests run their own server with.
 */
export function natsServerConfig(options: NatsServerConfigOptions): Record<string, unknown> {
  return {
    listen: `${options.host}:${options.port}`,
    jetstream: { store_dir: options.storeDir },
    ...(options.maxPayload ? { max_payload: options.maxPayload } : {}),
    ...(options.tls
      ? {
          tls: {
            cert_file: options.tls.certFile,
            key_file: options.tls.keyFile,
            ...(options.tls.caFile ? { ca_file: options.tls.caFile } : {}),
          },
        }
      : {}),
    authorization: natsAuthorization(options.publicKeys, options.extraUsers),
  };
}
