import { describe, expect, it } from 'vitest';
import { BUS_USERS, busPermissions, EVENT_ROUTES, natsServerConfig, REQUEST_ROUTES, type BusUser } from './bus-permissions.js';
import { EVENTS, SUBJECTS } from './subjects.js';

const allRequestSubjects = Object.values(SUBJECTS).flatMap((group) => Object.values(group) as string[]);
const publishes = (user: BusUser) => busPermissions(user).publish.allow;
const subscribes = (user: BusUser) => busPermissions(user).subscribe.allow;

describe('bus permissions', () => {
  it('decides every subject of subjects.ts exactly once', () => {
    expect(REQUEST_ROUTES.map((route) => route.subject).sort()).toEqual([...allRequestSubjects].sort());
    const events = Object.values(EVENTS).filter((subject) => subject !== EVENTS.usageRecorded && subject !== EVENTS.requestFailed);
    expect(EVENT_ROUTES.map((route) => route.subject).sort()).toEqual([...events].sort());
  });

  it('lets only the gateway send a request that carries a principal, and batch the native-batch ones', () => {
    const nativeBatches: string[] = Object.values(SUBJECTS.inference).filter((subject) => subject.startsWith('inference.batches.native.'));
    expect(nativeBatches).toHaveLength(4);
    const withPrincipal = REQUEST_ROUTES.filter((route) => route.principal);
    expect(withPrincipal.length).toBeGreaterThan(20);
    // Batch runs its lines, and reads its workspace balance, as the principal stored at submission.
    const asBatch = new Set<string>([
      SUBJECTS.inference.chatCreate,
      SUBJECTS.inference.messagesCreate,
      SUBJECTS.inference.responsesCreate,
      SUBJECTS.inference.embeddingsCreate,
      SUBJECTS.management.creditsGet,
    ]);
    for (const route of withPrincipal) {
      expect(route.callers, route.subject).toEqual(
        nativeBatches.includes(route.subject) ? ['batch'] : asBatch.has(route.subject) ? ['api-gateway', 'batch'] : ['api-gateway'],
      );
    }
    for (const user of BUS_USERS.filter((name) => name !== 'api-gateway')) {
      for (const route of withPrincipal.filter((candidate) => !candidate.callers.includes(user))) {
        expect(publishes(user), `${user} -> ${route.subject}`).not.toContain(route.subject);
      }
    }
    expect(publishes('api-gateway')).toContain(SUBJECTS.management.keysList);
    expect(publishes('api-gateway').some((subject) => nativeBatches.includes(subject))).toBe(false);
    expect(
      publishes('batch')
        .filter((subject) => subject.startsWith('inference.'))
        .sort(),
    ).toEqual([...nativeBatches, ...[...asBatch].filter((subject) => subject.startsWith('inference.'))].sort());
  });

  it('gives inference only what one request needs from management, and the catalog audit relay', () => {
    const fromManagement = publishes('inference').filter((subject) => subject.startsWith('management.'));
    expect(fromManagement.sort()).toEqual(
      [
        SUBJECTS.management.byokResolve,
        SUBJECTS.management.presetsResolve,
        SUBJECTS.management.spendReserve,
        SUBJECTS.management.auditCatalogAppend,
      ].sort(),
    );
  });

  it('lets only inference ask for and receive decrypted BYOK secrets', () => {
    for (const user of BUS_USERS) {
      expect(publishes(user).includes(SUBJECTS.management.byokResolve), user).toBe(user === 'inference');
      // Only management may take the request (and so see who asks); nobody else subscribes to it.
      expect(subscribes(user).includes(SUBJECTS.management.byokResolve), user).toBe(user === 'management');
    }
  });

  it('confines each user to its own inbox, and never to a wildcard over the bus', () => {
    for (const user of BUS_USERS) {
      const inboxes = subscribes(user).filter((subject) => subject.startsWith('_INBOX'));
      expect(inboxes, user).toEqual([`_INBOX.${user}.>`]);
      for (const subject of [...subscribes(user), ...publishes(user)]) {
        expect(subject, `${user}: ${subject}`).not.toMatch(
          /^(>|\*\.>|_INBOX\.>|\$JS\.API\.>|\$JS\.>|management\.>|inference\.>|events\.>)$/,
        );
      }
    }
  });

  it('lets a service answer into the inboxes of the users it serves only', () => {
    const answers = (user: BusUser) => publishes(user).filter((subject) => subject.startsWith('_INBOX'));
    expect(answers('api-gateway')).toEqual([]);
    expect(answers('management').sort()).toEqual([
      '_INBOX.api-gateway.>',
      '_INBOX.batch.>',
      '_INBOX.inference.>',
      '_INBOX.intern-signing.>',
    ]);
    expect(answers('inference').sort()).toEqual(['_INBOX.api-gateway.>', '_INBOX.batch.>']);
    expect(answers('batch')).toEqual(['_INBOX.api-gateway.>']);
    expect(answers('intern-signing').sort()).toEqual(['_INBOX.api-gateway.>', '_INBOX.management.>']);
    // Decrypted BYOK secrets travel into inference's inbox: only management may write there.
    for (const user of BUS_USERS) expect(publishes(user).includes('_INBOX.inference.>'), user).toBe(user === 'management');
  });

  it('opens JetStream per stream and consumer: usage publishing to inference, deleting streams to nobody', () => {
    expect(publishes('inference')).toContain(EVENTS.usageRecorded);
    // Batch publishes the one charge of a finalized batch.
    expect(publishes('batch')).toContain(EVENTS.usageRecorded);
    // The gateway records the response-cache hits it answers.
    expect(publishes('api-gateway')).toContain(EVENTS.usageRecorded);
    for (const user of BUS_USERS.filter((name) => name !== 'inference' && name !== 'batch' && name !== 'api-gateway'))
      expect(publishes(user), user).not.toContain(EVENTS.usageRecorded);
    // Only the gateway records failed requests, and only inference's durable reads them.
    for (const user of BUS_USERS) expect(publishes(user).includes(EVENTS.requestFailed), user).toBe(user === 'api-gateway');
    expect(publishes('inference')).toContain('$JS.API.CONSUMER.MSG.NEXT.USAGE.inference-request-failures');
    expect(publishes('management')).not.toContain('$JS.API.CONSUMER.MSG.NEXT.USAGE.inference-request-failures');
    expect(publishes('management')).toContain('$JS.API.CONSUMER.MSG.NEXT.USAGE.management-usage');
    expect(publishes('management')).not.toContain('$JS.API.CONSUMER.MSG.NEXT.USAGE.inference-generations');
    expect(publishes('management')).toContain('dead.USAGE.management-usage');
    expect(publishes('api-gateway')).toContain('$O.RPC_BODIES.>');
    for (const user of BUS_USERS)
      expect(publishes(user).includes('$O.RPC_BODIES.>'), user).toBe(['api-gateway', 'inference', 'management', 'batch'].includes(user));
    expect(publishes('intern-signing').some((subject) => subject.startsWith('$JS'))).toBe(false);
    for (const user of BUS_USERS)
      expect(
        publishes(user).some((subject) => subject.includes('.DELETE.USAGE') || subject.startsWith('$JS.API.STREAM.DELETE')),
        user,
      ).toBe(false);
  });

  it('builds a server configuration with one nkey user per service', () => {
    const publicKeys = Object.fromEntries(BUS_USERS.map((user, index) => [user, `U${String(index).repeat(55)}`])) as Record<
      BusUser,
      string
    >;
    const config = natsServerConfig({ host: '127.0.0.1', port: 4223, storeDir: '/tmp/js', publicKeys }) as {
      listen: string;
      authorization: { users: Array<{ nkey: string }> };
    };
    expect(config.listen).toBe('127.0.0.1:4223');
    expect(config.authorization.users.map((user) => user.nkey)).toEqual(Object.values(publicKeys));
    expect(JSON.stringify(config)).not.toMatch(/"SU/);
  });
});
