import { EVENT_DECLARATIONS, REQUEST_DECLARATIONS, type EventDeclaration, type RequestDeclaration } from './catalog/message-routes.js';
import { EVENTS, JETSTREAM } from './subjects.js';

/*
 * Who may say what on the bus. Each message's declaration (catalog/message-routes.ts)
 * says who serves it and who may send it; the nats-server permissions of each service's user
 * are derived from it, never written by hand, so a subject cannot ship without deciding who may use it.
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
   * its lines, its workspace balance and the native-batch subjects.
   */
  principal: boolean;
}

const SERVERS: Record<keyof typeof REQUEST_DECLARATIONS, BusUser> = {
  management: 'management',
  inference: 'inference',
  batch: 'batch',
  internSigning: 'intern-signing',
};

/** Every request-reply subject, from its declaration (catalog/message-routes.ts). */
export const REQUEST_ROUTES: readonly RequestRoute[] = Object.entries(REQUEST_DECLARATIONS).flatMap(([service, group]) =>
  Object.values(group).map((declaration: RequestDeclaration) => ({
    subject: declaration.subject,
    server: SERVERS[service as keyof typeof REQUEST_DECLARATIONS],
    callers: declaration.callers,
    principal: declaration.tenancy.actsFor === 'principal',
  })),
);

export interface EventRoute {
  subject: string;
  publishers: readonly BusUser[];
  subscribers: readonly BusUser[];
}

/** Core NATS events (fire and forget); the JetStream ones are granted by `JETSTREAM_GRANTS`. */
export const EVENT_ROUTES: readonly EventRoute[] = Object.values(EVENT_DECLARATIONS)
  .filter((declaration: EventDeclaration) => !declaration.jetStream)
  .map(({ subject, publishers, subscribers }) => ({ subject, publishers, subscribers }));

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
  // The gateway records the response-cache hits it answers itself, and the requests it answers with an error.
  'api-gateway': [
    { kind: 'stream', stream: JETSTREAM.usageStream },
    { kind: 'publish', subjects: [EVENTS.usageRecorded, EVENTS.requestFailed] },
    { kind: 'objectStore', bucket: RPC_BODIES_BUCKET },
  ],
  management: [...usageConsumer(JETSTREAM.consumers.managementUsage), { kind: 'objectStore', bucket: RPC_BODIES_BUCKET }],
  inference: [
    { kind: 'publish', subjects: [EVENTS.usageRecorded] },
    ...usageConsumer(JETSTREAM.consumers.inferenceGenerations),
    ...usageConsumer(JETSTREAM.consumers.inferenceRequestFailures),
    { kind: 'objectStore', bucket: RPC_BODIES_BUCKET },
  ],
  // Batch publishes one charge per finalized batch; the replies of its lines (inference's) may be large bodies.
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
  // Replies, stream chunks and liveness heartbeats go to the inboxes of the users
  // this one serves, and only theirs. Not nats-server's `allow_responses`: it remembers every
  // delivered request's reply subject, and with the long lifetime streams need its pruning
  // made each request cost more as the table grew. Reply subjects end in a random
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

const NATS_AUTH_TIMEOUT_SECONDS = 10;

/** A user of nats-server's `authorization.users`: the services' are nkeys; tests may add others. */
export type NatsServerUser = { nkey: string; permissions: UserPermissions } | Record<string, unknown>;

/**
 * The `authorization` block of nats-server's configuration: one nkey user per service with
 * its permissions. Only public keys go in: the file is not secret. `extraUsers` are for tests
 * (a harness that plays several roles); production configurations have none.
 */
export function natsAuthorization(
  publicKeys: Record<BusUser, string>,
  extraUsers: NatsServerUser[] = [],
): { timeout: number; users: NatsServerUser[] } {
  return {
    // Seconds a client has to authenticate (nats-server's default is 2): a starting pod on a
    // saturated node was refused ("Authentication Timeout") and exited before it was ready.
    timeout: NATS_AUTH_TIMEOUT_SECONDS,
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
