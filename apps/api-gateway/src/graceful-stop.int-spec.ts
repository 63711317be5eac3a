import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { validateEnv } from '@gw/config';
import { SUBJECTS } from '@gw/contracts';
import { principalFixture, PrivateNatsServer } from '@gw/testing';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createGateway, stopGateway } from './bootstrap.js';
import { GatewayEnv } from './env.js';

const secret = 'sk-gw-v1-graceful-test';
const keyHash = createHash('sha256').update(secret).digest('hex');
const principal = principalFixture(keyHash);
const SLOW_MS = 1_500;

/**
 * The gateway's stop over real HTTP on a nats-server of its own, with stand-ins for
 * management and a slow inference: readiness turns 503 first, the request in flight still gets
 * its answer, and only then does the listener go away. Readiness does not depend on the
 * services (none of batch and intern-signing answers here).
 */
describe('gateway graceful stop', () => {
  let nats: PrivateNatsServer;
  let responder: NatsConnection;
  let gateway: NestFastifyApplication;
  let base: string;
  let env: GatewayEnv;

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    responder = await connect({ servers: nats.url });
    const answer = (subject: string, response: unknown, delayMs = 0) =>
      responder.subscribe(subject, {
        queue: subject.split('.')[0],
        callback: (_error, message) => {
          const { id } = message.json<{ id: string }>();
          setTimeout(() => message.respond(JSON.stringify({ id, response, isDisposed: true })), delayMs);
        },
      });
    answer(SUBJECTS.management.authResolve, { principal, ttlSeconds: 60 });
    answer(SUBJECTS.inference.modelsList, { object: 'list', data: [] }, SLOW_MS);
    await responder.flush();
    env = validateEnv(GatewayEnv, {
      NATS_URL: nats.url,
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: inject('redisKeyPrefix'),
      LOG_LEVEL: 'silent',
      PORT: '0',
      SHUTDOWN_DELAY_MS: '300',
      SHUTDOWN_GRACE_MS: '10000',
    });
    gateway = await createGateway(env);
    await gateway.listen({ port: 0, host: '127.0.0.1' });
    base = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    await gateway?.close().catch(() => undefined);
    await responder?.close();
    await nats?.stop();
  });

  it('is ready although batch and intern-signing do not answer; /health/services says which are missing', async () => {
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(200);
    const services = await fetch(`${base}/health/services`);
    expect(services.status).toBe(503);
    expect(((await services.json()) as { services: Record<string, string> }).services.batch).not.toBe('ok');
  });

  it('turns not-ready first, finishes the request in flight, then stops listening', async () => {
    const inFlight = fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
    await new Promise((resolve) => setTimeout(resolve, 200)); // the request reached the gateway
    let stopped = false;
    const stopping = stopGateway(gateway, env).then(() => (stopped = true));

    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', reason: 'draining' });
    expect(ready.headers.get('connection')).toBe('close');
    expect(stopped).toBe(false); // the request in flight holds the stop

    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ object: 'list', data: [] });
    await stopping;
    expect(stopped).toBe(true);
    await expect(fetch(`${base}/health`)).rejects.toThrow();
  });
});
