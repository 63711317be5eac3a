import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { validateEnv } from '@gw/config';
import { SUBJECTS, type Principal } from '@gw/contracts';
import { principalFixture, PrivateNatsServer } from '@gw/testing';
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createGateway } from '../bootstrap.js';
import { GatewayEnv } from '../env.js';

/**
 * The gateway's per-key limits with the defaults of its configuration, on a real
 * Redis and a nats-server of its own (stand-ins for management and inference): the
 * configured defaults apply to a key without overrides, a key's override wins, and with Redis
 * unreachable requests go through without rate-limit headers (they fail open).
 */
describe('per-key limits with the configured defaults', () => {
  let nats: PrivateNatsServer;
  let responder: NatsConnection;
  const gateways: NestFastifyApplication[] = [];
  const principals = new Map<string, Principal>();
  /** Keys whose resolution management answers late (the client may be gone by then). */
  const slowAuth = new Set<string>();

  const newKey = (overrides: Partial<Principal> = {}, slow = false) => {
    const secret = `sk-gw-v1-${randomUUID()}`;
    const keyHash = createHash('sha256').update(secret).digest('hex');
    principals.set(keyHash, principalFixture(keyHash, overrides));
    if (slow) slowAuth.add(keyHash);
    return secret;
  };

  async function startGateway(extra: Record<string, string>): Promise<string> {
    const env = validateEnv(GatewayEnv, {
      NATS_URL: nats.url,
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: inject('redisKeyPrefix'),
      LOG_LEVEL: 'silent',
      PORT: '0',
      KEY_RATE_LIMIT_RPM: '2',
      KEY_CONCURRENCY_LIMIT: '1',
      ...extra,
    });
    const gateway = await createGateway(env);
    await gateway.listen({ port: 0, host: '127.0.0.1' });
    gateways.push(gateway);
    return (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
  }

  let base: string;
  const models = (secret: string, url = base) => fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    responder = await connect({ servers: nats.url });
    responder.subscribe(SUBJECTS.management.authResolve, {
      callback: (_error, message) => {
        const { id, data } = message.json<{ id: string; data: { keyHash: string } }>();
        const answer = () =>
          message.respond(
            JSON.stringify({ id, response: { principal: principals.get(data.keyHash) ?? null, ttlSeconds: 60 }, isDisposed: true }),
          );
        if (slowAuth.delete(data.keyHash)) setTimeout(answer, 300);
        else answer();
      },
    });
    // A slow model list, so that two requests of one key are in flight together.
    responder.subscribe(SUBJECTS.inference.modelsList, {
      callback: (_error, message) => {
        const { id } = message.json<{ id: string }>();
        setTimeout(() => message.respond(JSON.stringify({ id, response: { object: 'list', data: [] }, isDisposed: true })), 300);
      },
    });
    await responder.flush();
    base = await startGateway({});
  });

  afterAll(async () => {
    // A request whose client left mid-way may still hold its connection here (the production
    // stop, stopGateway, closes connections after the grace period the same way).
    for (const gateway of gateways) {
      (gateway.getHttpServer() as import('node:http').Server).closeAllConnections();
      await gateway.close().catch(() => undefined);
    }
    await responder?.close();
    await nats?.stop();
  });

  it('applies KEY_RATE_LIMIT_RPM to a key without an override', async () => {
    const secret = newKey();
    const statuses = [];
    for (let index = 0; index < 3; index++) {
      const response = await models(secret);
      statuses.push([response.status, response.headers.get('x-ratelimit-limit'), response.headers.get('x-ratelimit-remaining')]);
    }
    expect(statuses).toEqual([
      [200, '2', '1'],
      [200, '2', '0'],
      [429, '2', '0'],
    ]);
  });

  it('applies KEY_CONCURRENCY_LIMIT to a key without an override, and the key’s own limit over it', async () => {
    const plain = newKey();
    const [first, second] = await Promise.all([models(plain), models(plain)]);
    expect([first.status, second.status].sort()).toEqual([200, 429]);
    const refused = first.status === 429 ? first : second;
    expect(await refused.json()).toMatchObject({
      error: { code: 429, metadata: { error_type: 'rate_limit_exceeded', limit_type: 'concurrent_requests', limit: 1 } },
    });

    const roomy = newKey({ rateLimits: { requestsPerMinute: 5, concurrentRequests: 3 } });
    const together = await Promise.all([models(roomy), models(roomy), models(roomy)]);
    expect(together.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(together[0]!.headers.get('x-ratelimit-limit')).toBe('5');
  });

  it('gives back the slot of a client that left before its limits were checked', async () => {
    // One request in flight at most (the default here); management answers this key late.
    const secret = newKey({ rateLimits: { requestsPerMinute: 100, concurrentRequests: null } }, true);
    const gone = new AbortController();
    const early = fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${secret}` }, signal: gone.signal }).catch(
      () => undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    gone.abort(); // gone while the gateway still waits for management
    await early;
    await new Promise((resolve) => setTimeout(resolve, 600));
    const after = await models(secret);
    expect(after.status).toBe(200);
  });

  it('lets requests through without rate-limit headers when Redis is unreachable (fail open)', async () => {
    const down = await startGateway({ REDIS_URL: 'redis://127.0.0.1:1' });
    const secret = newKey();
    for (let index = 0; index < 4; index++) {
      const response = await models(secret, down);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });
});
