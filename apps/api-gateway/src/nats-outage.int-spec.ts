import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { validateEnv } from '@gw/config';
import { SUBJECTS } from '@gw/contracts';
import { principalFixture, PrivateNatsServer } from '@gw/testing';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createGateway } from './bootstrap.js';
import { GatewayEnv } from './env.js';

const secret = 'sk-gw-v1-outage-test';
const keyHash = createHash('sha256').update(secret).digest('hex');
const principal = principalFixture(keyHash);

/**
 * The real gateway over HTTP on a nats-server of its own, with stand-ins answering for
 * management and inference. NATS is killed and restarted under it: requests must fail with a
 * 5xx envelope once NATS_RECONNECT_WAIT_MS has passed while it is down, succeed when it comes
 * back within that wait, and succeed again afterwards without a restart.
 */
const RECONNECT_WAIT_MS = 1_500;

describe('gateway through a NATS outage', () => {
  let nats: PrivateNatsServer;
  let responder: NatsConnection;
  let gateway: NestFastifyApplication;
  let baseUrl: string;

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    // The stand-ins reconnect before the gateway (250 ms and jitter), as services on other nodes of a cluster would not even leave.
    responder = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 20, reconnectJitter: 0 });
    const answer = (subject: string, response: unknown) =>
      responder.subscribe(subject, {
        queue: subject.split('.')[0],
        callback: (_error, message) => {
          const { id } = message.json<{ id: string }>();
          message.respond(JSON.stringify({ id, response, isDisposed: true }));
        },
      });
    answer(SUBJECTS.management.authResolve, { principal, ttlSeconds: 60 });
    answer(SUBJECTS.inference.modelsList, { object: 'list', data: [] });
    await responder.flush();
    const env = validateEnv(GatewayEnv, {
      NATS_URL: nats.url,
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: inject('redisKeyPrefix'),
      LOG_LEVEL: 'silent',
      RPC_TIMEOUT_MS: '1000',
      NATS_RECONNECT_WAIT_MS: String(RECONNECT_WAIT_MS),
      PORT: '0',
    });
    gateway = await createGateway(env);
    await gateway.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `${await gateway.getUrl()}/v1`.replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    await gateway?.close();
    await responder?.close();
    await nats?.stop();
  });

  const listModels = () => fetch(`${baseUrl}/models`, { headers: { authorization: `Bearer ${secret}` } });

  it('serves, fails with a 503 envelope after the reconnect wait while NATS is down, and recovers by itself', async () => {
    expect((await listModels()).status).toBe(200);

    await nats.halt();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const down = await listModels();
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({
      error: { code: 503, metadata: { error_type: 'server', reason: 'service_unavailable', retryable: true } },
    });
    // The gateway waited for its own reconnect, then gave up: no longer, no shorter.
    // Not shorter than the wait; its one wait, not several (how far above it is the machine's, logged).
    expect(Date.now() - started).toBeGreaterThanOrEqual(RECONNECT_WAIT_MS - 50);
    console.log(`503 after ${Date.now() - started} ms of a ${RECONNECT_WAIT_MS} ms reconnect wait`);
    expect(Date.now() - started).toBeLessThan(RECONNECT_WAIT_MS * 10);

    await nats.resume();
    let status = 0;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && status !== 200) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await listModels()).status;
    }
    expect(status).toBe(200);
  });

  it('a request arriving while NATS restarts waits for the reconnect and is answered, not refused', async () => {
    expect((await listModels()).status).toBe(200);
    await nats.halt();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const during = listModels();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await nats.resume();
    const answered = await during;
    expect(`${answered.status} ${await answered.text()}`).toMatch(/^200/);
  });

  it('answers 503 when no service is subscribed', async () => {
    const response = await fetch(`${baseUrl}/keys`, { headers: { authorization: `Bearer ${secret}` } });
    expect(response.status).toBe(503);
  });
});
