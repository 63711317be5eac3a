import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  EVENTS,
  JETSTREAM,
  SUBJECTS,
  tenancyOf,
  type BusUser,
  type HealthReply,
  type Principal,
  type UsageRecordedEvent,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import {
  generatePrincipalKeyPair,
  generationIdOf,
  JetStreamPublisher,
  PrincipalSigner,
  principalSigningKey,
  readPrincipalClaims,
  requestPrincipalOf,
  ResilientNatsConnection,
  RpcClient,
} from '@gw/messaging';
import { runWithRequestId } from '@gw/telemetry';
import { busAuth } from '@gw/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, stack } from './e2e-helpers.js';

/*
 * Issue 35 item 6: the probe's forged messages. Each service's own seed may publish its subjects
 * (one nkey each), so before this a seed alone could list any workspace's keys, add credits, read a
 * workspace's decrypted BYOK secrets or bill it. Now a request acting for a tenant must carry the
 * principal the gateway signed for that request and tenant; each forgery below is refused by the
 * real service on the real bus, and the same request with a good principal is answered.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const gatewayKey = principalSigningKey(stack.principalKeys.signingKey);
/** What the gateway would sign; `now` moves the expiry. */
const signAsGateway = (subject: string, data: unknown, requestId: string, now = Date.now()) =>
  new PrincipalSigner(gatewayKey).sign(tenancyOf(subject)!, data, requestId, now)!;
/** A key that is not the gateway's: what a forger holding a seed could sign with. */
const forger = new PrincipalSigner(principalSigningKey(generatePrincipalKeyPair().signingKey));

const opened: Array<{ nats: ResilientNatsConnection; rpc: RpcClient }> = [];

async function connect(user: BusUser): Promise<ResilientNatsConnection> {
  return ResilientNatsConnection.open({ servers: stack.natsUrl, name: `bus-principal-e2e-${user}`, auth: busAuth(stack.natsSeeds, user) });
}

async function as(user: BusUser): Promise<RpcClient> {
  const nats = await connect(user);
  const rpc = new RpcClient(nats, 5_000, { livenessTimeoutMs: 0 });
  opened.push({ nats, rpc });
  return rpc;
}

/**
 * A call from `rpc` with this request id and principal token in its headers (`x-request-id`,
 * `Gw-Principal`), as a service passes on the one its request came with: the answer, or the refusal's reason.
 */
async function ask(rpc: RpcClient, subject: string, data: unknown, requestId: string, token?: string): Promise<unknown> {
  try {
    return { answered: await runWithRequestId(requestId, () => rpc.send(subject, data), token ? requestPrincipalOf(token) : undefined) };
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { status: error.status, reason: error.metadata?.reason };
  }
}

const refused = (reason: string) => ({ status: 403, reason });

describe('forged messages on the bus are refused (issue 35 item 6)', () => {
  let principal: Principal;
  let victim: Principal;

  beforeAll(async () => {
    const gateway = await as('api-gateway');
    const resolve = SUBJECTS.management.authResolve;
    const lookup = { keyHash: sha256(stack.managementKey) };
    const requestId = randomUUID();
    const reply = (await ask(gateway, resolve, lookup, requestId, signAsGateway(resolve, lookup, requestId))) as {
      answered: { principal: Principal };
    };
    principal = reply.answered.principal;
    // Another workspace's principal, as a forger would write it: nothing checks it before the signature.
    victim = { ...principal, workspaceId: randomUUID() };
  });

  afterAll(async () => {
    for (const { nats, rpc } of opened) {
      rpc.close();
      await nats.close();
    }
  });

  it("refuses the gateway's seed alone resolving a key, or opening a console session, without the gateway's signature", async () => {
    const gateway = await as('api-gateway');
    expect(await ask(gateway, SUBJECTS.management.authResolve, { keyHash: sha256(stack.managementKey) }, randomUUID())).toEqual(
      refused('principal_missing'),
    );
    const session = {
      issuer: 'https://issuer.example',
      subject: 'someone',
      key_hash: 'f'.repeat(64),
      expires_at: new Date().toISOString(),
    };
    const requestId = randomUUID();
    const keyToken = signAsGateway(SUBJECTS.management.keysList, { principal }, requestId);
    expect(await ask(gateway, SUBJECTS.management.consoleSessionOpen, session, requestId, keyToken)).toEqual(
      refused('principal_other_tenant'),
    );
  });

  describe("the gateway's seed alone cannot list a workspace's keys or add credits", () => {
    const keysList = SUBJECTS.management.keysList;
    const list = () => ({ principal, includeDisabled: true, offset: 0 });

    it('answers the principal the gateway signed for this request (the normal path)', async () => {
      const gateway = await as('api-gateway');
      const requestId = randomUUID();
      const answer = (await ask(gateway, keysList, list(), requestId, signAsGateway(keysList, list(), requestId))) as {
        answered?: Array<{ hash: string }>;
      };
      expect(answer.answered?.map((key) => key.hash)).toContain(sha256(stack.apiKey));
    });

    it('refuses a request without a principal', async () => {
      expect(await ask(await as('api-gateway'), keysList, list(), randomUUID())).toEqual(refused('principal_missing'));
    });

    it('refuses a principal signed by any key but the gateway’s', async () => {
      const requestId = randomUUID();
      const token = forger.sign(tenancyOf(keysList)!, list(), requestId)!;
      expect(await ask(await as('api-gateway'), keysList, list(), requestId, token)).toEqual(refused('principal_forged'));
    });

    it('refuses an expired principal', async () => {
      const requestId = randomUUID();
      const token = signAsGateway(keysList, list(), requestId, Date.now() - 10 * 60_000);
      expect(await ask(await as('api-gateway'), keysList, list(), requestId, token)).toEqual(refused('principal_expired'));
    });

    it('refuses a principal replayed with another request id', async () => {
      const token = signAsGateway(keysList, list(), randomUUID());
      expect(await ask(await as('api-gateway'), keysList, list(), randomUUID(), token)).toEqual(refused('principal_other_request'));
    });

    it('refuses a principal of one workspace on a request for another', async () => {
      const requestId = randomUUID();
      const token = signAsGateway(keysList, list(), requestId);
      const other = { principal: victim, includeDisabled: true, offset: 0 };
      expect(await ask(await as('api-gateway'), keysList, other, requestId, token)).toEqual(refused('principal_other_tenant'));
    });

    it('refuses credits added without the principal', async () => {
      const add = { principal, amount: 1000 };
      expect(await ask(await as('api-gateway'), SUBJECTS.management.creditsAdd, add, randomUUID())).toEqual(refused('principal_missing'));
    });
  });

  describe("inference's seed alone cannot read a workspace's BYOK secrets or bill it", () => {
    const byokResolve = SUBJECTS.management.byokResolve;

    it('answers for the workspace of the request it serves, with the principal it got', async () => {
      const inference = await as('inference');
      const requestId = randomUUID();
      const token = signAsGateway(SUBJECTS.inference.chatStream, { principal }, requestId);
      const answer = (await ask(inference, byokResolve, { workspaceId: principal.workspaceId }, requestId, token)) as {
        answered?: { credentials: unknown[] };
      };
      expect(Array.isArray(answer.answered?.credentials)).toBe(true);
    });

    it('refuses BYOK secrets asked without a principal', async () => {
      expect(await ask(await as('inference'), byokResolve, { workspaceId: victim.workspaceId }, randomUUID())).toEqual(
        refused('principal_missing'),
      );
    });

    it('refuses BYOK secrets of another workspace than its request’s', async () => {
      const requestId = randomUUID();
      const token = signAsGateway(SUBJECTS.inference.chatStream, { principal }, requestId);
      expect(await ask(await as('inference'), byokResolve, { workspaceId: victim.workspaceId }, requestId, token)).toEqual(
        refused('principal_other_tenant'),
      );
    });

    it('refuses a spend reservation without a principal', async () => {
      const reserve = {
        reservationId: randomUUID(),
        workspaceId: victim.workspaceId,
        keyHash: victim.keyHash,
        minimum: '1',
        wanted: '1',
        ttlSeconds: 60,
      };
      expect(await ask(await as('inference'), SUBJECTS.management.spendReserve, reserve, randomUUID())).toEqual(
        refused('principal_missing'),
      );
    });
  });

  describe("batch's seed alone cannot run (and bill) a generation for a workspace", () => {
    const chat = { principal, body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 } };

    it('refuses a line without a grant', async () => {
      expect(await ask(await as('batch'), SUBJECTS.inference.chatCreate, chat, randomUUID())).toEqual(refused('principal_missing'));
    });

    it('refuses a request’s principal replayed as a line', async () => {
      const token = signAsGateway(SUBJECTS.inference.chatStream, { principal }, randomUUID());
      expect(await ask(await as('batch'), SUBJECTS.inference.chatCreate, chat, randomUUID(), token)).toEqual(
        refused('principal_other_request'),
      );
    });
  });

  describe("inference's seed alone cannot bill a workspace by publishing usage events", () => {
    /** A key of its own, so its usage counts only what this test publishes. */
    let key: { hash: string };
    let keyPrincipal: Principal;
    let publisher: JetStreamPublisher;
    let usageNats: ResilientNatsConnection;

    beforeAll(async () => {
      const created = await call('/keys', { key: stack.managementKey, body: { name: 'bus-principal usage e2e' } });
      expect(created.status).toBe(201);
      key = { hash: (created.body as { data: { hash: string } }).data.hash };
      keyPrincipal = { ...principal, keyHash: key.hash, keyKind: 'standard' };
      usageNats = await connect('inference');
      publisher = new JetStreamPublisher(usageNats.connection, 5_000);
    });

    afterAll(async () => {
      publisher.close();
      await usageNats.close();
    });

    /**
     * A usage event of `cost` credits for the test's key, carrying `token` (none: unsigned) for request
     * `requestId`; its generation id is the token's first slot, as inference mints it, unless given.
     */
    const usageEvent = (requestId: string, token: string | undefined, cost = '0.25', generationId?: string): UsageRecordedEvent => ({
      generationId:
        generationId ??
        (token && readPrincipalClaims(token)?.n ? generationIdOf(readPrincipalClaims(token)!.n!, 0) : `gen-forged-${randomUUID()}`),
      workspaceId: keyPrincipal.workspaceId,
      keyHash: keyPrincipal.keyHash,
      userId: keyPrincipal.userId,
      model: 'sim/gpt-4o-mini',
      provider: 'simulator-openai',
      upstreamModel: 'gpt-4o-mini',
      status: 'succeeded',
      isByok: false,
      promptTokens: 10,
      completionTokens: 10,
      cachedTokens: 0,
      reasoningTokens: 0,
      tokensEstimated: false,
      cost,
      upstreamCost: cost,
      latencyMs: 1,
      createdAt: new Date().toISOString(),
      requestId,
      ...(token ? { principal: token } : {}),
    });
    const publish = (event: UsageRecordedEvent) => publisher.publish(EVENTS.usageRecorded, JSON.stringify(event), event.generationId);
    const tokenFor = (who: Principal, requestId: string) => signAsGateway(SUBJECTS.inference.chatStream, { principal: who }, requestId);
    const keyUsage = async () => {
      const answer = await call(`/keys/${key.hash}`, { key: stack.managementKey });
      return (answer.body as { data: { usage: number } }).data.usage;
    };
    /** What each consumer of USAGE refused (dead-lettered for its principal) since it started. */
    const refusedSoFar = async () => {
      const gateway = await as('api-gateway');
      const management = (await gateway.send(SUBJECTS.management.health, {})) as HealthReply;
      const inference = (await gateway.send(SUBJECTS.inference.health, {})) as HealthReply;
      return {
        management: management.consumers?.[JETSTREAM.consumers.managementUsage]?.refused ?? 0,
        inference: inference.consumers?.[JETSTREAM.consumers.inferenceGenerations]?.refused ?? 0,
      };
    };

    it('bills an event carrying the principal of its own request, and no forged one: each is dead-lettered and counted', async () => {
      const before = await refusedSoFar();
      const requestId = randomUUID();
      const other = randomUUID();
      const forged = [
        // The principal of a request for another workspace (one inference served), on an event billing this one.
        usageEvent(requestId, tokenFor(victim, requestId)),
        // This key's principal, replayed on an event of another request.
        usageEvent(randomUUID(), tokenFor(keyPrincipal, other)),
        // No principal at all.
        usageEvent(randomUUID(), undefined),
        // Signed by a key that is not the gateway's.
        usageEvent(requestId, forger.sign(tenancyOf(SUBJECTS.inference.chatStream)!, { principal: keyPrincipal }, requestId)),
      ];
      for (const event of forged) await publish(event);
      // A batch message mixing a forged event with a good one: the good one is billed, the forged one lettered.
      const good = usageEvent(requestId, tokenFor(keyPrincipal, requestId), '0.125');
      const mixed = [usageEvent(randomUUID(), tokenFor(keyPrincipal, randomUUID())), good];
      await publisher.publish(EVENTS.usageRecorded, JSON.stringify({ events: mixed }), `batch-${randomUUID()}`);

      await expect.poll(async () => (await refusedSoFar()).management - before.management, { timeout: 30_000 }).toBe(5);
      await expect.poll(async () => (await refusedSoFar()).inference - before.inference, { timeout: 30_000 }).toBe(5);
      // Only the good event is billed (0.125), none of the five forged ones (0.25 each).
      await expect.poll(keyUsage, { timeout: 30_000 }).toBe(0.125);
      const record = await call(`/generation?id=${forged[0]!.generationId}`, { key: stack.managementKey });
      expect(record.status).toBe(404);
    }, 120_000);

    it('bills a real token only for its request’s own generations: a new generation id under it is refused, dead-lettered with its reason, not billed', async () => {
      const before = await refusedSoFar();
      const usage = await keyUsage();
      const requestId = randomUUID();
      const token = tokenFor(keyPrincipal, requestId);
      const nonce = readPrincipalClaims(token)!.n!;
      // What inference published for the request: its generation in slot 0, billed.
      const genuine = usageEvent(requestId, token, '0.0625');
      await publish(genuine);
      await expect.poll(keyUsage, { timeout: 60_000 }).toBe(usage + 0.0625);
      // The genuine event republished (a replay is not a new charge), then what a seed holding that
      // token would add to bill the workspace again: a new generation id, the same slot spelt
      // otherwise, a slot past the last. Last, the request's second generation (slot 1, a tool
      // loop's next call), billed: once it counts, every message before it was handled.
      await publisher.publish(EVENTS.usageRecorded, JSON.stringify({ events: [genuine] }), `replay-${randomUUID()}`);
      const forged = [
        usageEvent(requestId, token, '0.25', `gen-${Date.now().toString(36)}-${randomUUID().replaceAll('-', '').slice(0, 20)}`),
        usageEvent(requestId, token, '0.25', `gen-${nonce}-00`),
        usageEvent(requestId, token, '0.25', `gen-${nonce}-1s`),
      ];
      for (const event of forged) await publish(event);
      await publish(usageEvent(requestId, token, '0.03125', generationIdOf(nonce, 1)));
      await expect.poll(keyUsage, { timeout: 60_000 }).toBe(usage + 0.09375);
      await expect.poll(async () => (await refusedSoFar()).management - before.management, { timeout: 60_000 }).toBe(forged.length);
      await expect.poll(async () => (await refusedSoFar()).inference - before.inference, { timeout: 60_000 }).toBe(forged.length);
      // Each refusal was dead-lettered (the line is written after the letter is stored) with its reason, by both consumers.
      await expect
        .poll(
          () => {
            const logs = readdirSync(stack.logDir).map((file) => readFileSync(join(stack.logDir, file), 'utf8'));
            return forged.map(
              (event) =>
                logs.filter((text) =>
                  new RegExp(
                    `refused usage event\\(s\\) ${event.generationId} \\(stream sequence \\d+\\): usage_principal_other_generation`,
                  ).test(text),
                ).length,
            );
          },
          { timeout: 30_000 },
        )
        .toEqual(forged.map(() => 2));
      // Billed: the genuine 0.0625 once and its second generation 0.03125, none of the three forgeries (0.25 each).
      expect(await keyUsage()).toBe(usage + 0.09375);
      for (const event of forged)
        expect((await call(`/generation?id=${event.generationId}`, { key: stack.managementKey })).status).toBe(404);
    }, 180_000);

    it('bills an event consumed long after its principal expired (a redelivery, a replayed dead letter): binding, not age', async () => {
      const requestId = randomUUID();
      const expired = signAsGateway(SUBJECTS.inference.chatStream, { principal: keyPrincipal }, requestId, Date.now() - 3 * 24 * 3_600_000);
      const usage = await keyUsage();
      await publish(usageEvent(requestId, expired, '0.5'));
      await expect.poll(keyUsage, { timeout: 30_000 }).toBe(usage + 0.5);
    }, 60_000);
  });

  it("refuses intern-signing's seed revoking an intern's keys outside a request", async () => {
    const data = { workspaceId: principal.workspaceId, internId: randomUUID() };
    expect(await ask(await as('intern-signing'), SUBJECTS.management.keysDeleteForIntern, data, randomUUID())).toEqual(
      refused('principal_missing'),
    );
  });
});
