import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import { SUBJECTS, tenancyOf, type BusUser, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { generatePrincipalKeyPair, PrincipalSigner, principalSigningKey, ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { runWithRequestId } from '@gw/telemetry';
import { busAuth } from '@gw/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stack } from './e2e-helpers.js';

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

async function as(user: BusUser): Promise<RpcClient> {
  const nats = await ResilientNatsConnection.open({
    servers: stack.natsUrl,
    name: `bus-principal-e2e-${user}`,
    auth: busAuth(stack.natsSeeds, user),
  });
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
    return { answered: await runWithRequestId(requestId, () => rpc.send(subject, data), token) };
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

  it("refuses intern-signing's seed revoking an intern's keys outside a request", async () => {
    const data = { workspaceId: principal.workspaceId, internId: randomUUID() };
    expect(await ask(await as('intern-signing'), SUBJECTS.management.keysDeleteForIntern, data, randomUUID())).toEqual(
      refused('principal_missing'),
    );
  });
});
