import { connect, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefix, SUBJECTS, tenancyOf, type BusUser, type Principal } from '@gw/contracts';
import {
  natsAuthOptions,
  PrincipalSigner,
  principalSigningKey,
  requestPrincipalOf,
  ResilientNatsConnection,
  RpcClient,
} from '@gw/messaging';
import { runWithRequestId } from '@gw/telemetry';
import { busAuth } from '@gw/testing';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stack } from './e2e-helpers.js';

/*
 * Issue 9 item 6: the stack's bus requires each service's own nkey, and a user may
 * publish and subscribe only what the table in @gw/contracts gives it. Before, any local client
 * could send `management.keys.list` with another workspace's principal and read its keys.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Connected {
  nats: ResilientNatsConnection;
  rpc: RpcClient;
  /** The server's refusals this connection was told about (`Permissions Violation for …`). */
  refusals: string[];
}

const opened: Connected[] = [];

async function as(user: BusUser): Promise<Connected> {
  const nats = await ResilientNatsConnection.open({
    servers: stack.natsUrl,
    name: `bus-auth-e2e-${user}`,
    auth: busAuth(stack.natsSeeds, user),
  });
  const refusals: string[] = [];
  void (async () => {
    for await (const status of nats.connection.status())
      if (status.type === 'error') refusals.push(String((status as { error?: Error }).error?.message));
  })();
  // The gateway signs the principals of its requests (the other users' are refused before that matters).
  const principalSigner = user === 'api-gateway' ? new PrincipalSigner(principalSigningKey(stack.principalKeys.signingKey)) : undefined;
  const connected = { nats, rpc: new RpcClient(nats, 2_000, { livenessTimeoutMs: 0, principalSigner }), refusals };
  opened.push(connected);
  return connected;
}

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('the bus refuses clients and requests the subject table does not allow', () => {
  let principal: Principal;

  beforeAll(async () => {
    const gateway = await as('api-gateway');
    const reply = await gateway.rpc.send<{ principal: Principal | null }>(SUBJECTS.management.authResolve, {
      keyHash: sha256(stack.managementKey),
    });
    principal = reply.principal!;
    expect(principal.workspaceId).toBe(stack.workspaceId);
  });

  afterAll(async () => {
    for (const { nats, rpc } of opened) {
      rpc.close();
      await nats.close();
    }
  });

  it('refuses a client without credentials at connect', async () => {
    let refused: unknown;
    let nats: NatsConnection | undefined;
    try {
      nats = await connect({ servers: stack.natsUrl, timeout: 3_000 });
    } catch (error) {
      refused = error;
    }
    await nats?.close();
    expect(String(refused)).toMatch(/Authorization Violation/i);
  });

  it('lets the gateway list the workspace keys with a principal (the normal path)', async () => {
    const gateway = await as('api-gateway');
    const keys = await gateway.rpc.send<Array<{ hash: string }>>(SUBJECTS.management.keysList, {
      principal,
      includeDisabled: true,
      offset: 0,
    });
    expect(keys.map((key) => key.hash)).toContain(sha256(stack.apiKey));
  });

  for (const user of ['inference', 'management', 'batch', 'intern-signing'] as const) {
    it(`refuses management.keys.list with a principal from ${user}'s credentials (permission violation, no answer)`, async () => {
      const forger = await as(user);
      const answer = forger.rpc.send(SUBJECTS.management.keysList, { principal, includeDisabled: true, offset: 0 }).then(
        () => 'answered',
        (error: Error) => `failed: ${error.message}`,
      );
      await until(() => forger.refusals.length > 0);
      expect(forger.refusals.join('\n')).toMatch(/Permissions Violation for Publish to "management\.keys\.list"/);
      expect(await answer).not.toBe('answered');
    });
  }

  it('lets only inference ask for BYOK secrets, and nobody else read its replies', async () => {
    const gateway = await as('api-gateway');
    const refused = gateway.rpc.send(SUBJECTS.management.byokResolve, { workspaceId: stack.workspaceId }).then(
      () => 'answered',
      () => 'failed',
    );
    await until(() => gateway.refusals.length > 0);
    expect(gateway.refusals.join('\n')).toMatch(/Permissions Violation for Publish to "management\.byok\.resolve"/);
    expect(await refused).toBe('failed');

    // Inference asks for the workspace of the request it serves, with the principal that request came with.
    const inference = await as('inference');
    const requestId = 'bus-auth-byok';
    const token = new PrincipalSigner(principalSigningKey(stack.principalKeys.signingKey)).sign(
      tenancyOf(SUBJECTS.inference.chatStream)!,
      { principal },
      requestId,
    );
    const reply = await runWithRequestId(
      requestId,
      () => inference.rpc.send<{ credentials: unknown[] }>(SUBJECTS.management.byokResolve, { workspaceId: stack.workspaceId }),
      requestPrincipalOf(token!),
    );
    expect(Array.isArray(reply.credentials)).toBe(true);

    // Inference's inbox, where the decrypted secrets arrive, is its own: the gateway cannot listen in,
    // nor can anyone stand in for management on the subject.
    const eavesdropper = await as('api-gateway');
    eavesdropper.nats.connection.subscribe(`${inboxPrefix('inference')}.>`);
    eavesdropper.nats.connection.subscribe(SUBJECTS.management.byokResolve);
    await until(() => eavesdropper.refusals.length >= 2);
    expect(eavesdropper.refusals.join('\n')).toMatch(/Permissions Violation for Subscription to "_INBOX\.inference\.>"/);
    expect(eavesdropper.refusals.join('\n')).toMatch(/Permissions Violation for Subscription to "management\.byok\.resolve"/);
  });

  // Its publishers are inference, batch and the gateway (the cache hits it answers); management only consumes.
  it('refuses a publish to the usage stream from a service that only consumes it', async () => {
    const gateway = await as('api-gateway');
    const nats = await connect({ servers: stack.natsUrl, ...natsAuthOptions(busAuth(stack.natsSeeds, 'management')) });
    const errors: string[] = [];
    void (async () => {
      for await (const status of nats.status())
        if (status.type === 'error') errors.push(String((status as { error?: Error }).error?.message));
    })();
    nats.publish('events.usage.recorded', '{}');
    nats.publish('$JS.API.STREAM.DELETE.USAGE');
    await until(() => errors.length >= 2);
    await nats.close();
    expect(errors.join('\n')).toMatch(/Publish to "events\.usage\.recorded"/);
    expect(errors.join('\n')).toMatch(/Publish to "\$JS\.API\.STREAM\.DELETE\.USAGE"/);
    expect(gateway.refusals).toEqual([]);
  });
});
