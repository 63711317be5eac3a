import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { GatewayError } from '@gw/errors';
import { PrivateNatsServer } from '@gw/testing';
import { IsString } from 'class-validator';
import { LoggerModule } from 'nestjs-pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient } from './rpc-client.js';
import { startRpcHarness, type RpcHarness } from './spec-helpers.js';

class EchoRequest {
  @IsString()
  text!: string;
}

@Controller()
class ProbeController {
  @MessagePattern('probe.echo')
  echo(@Payload() request: EchoRequest): { echoed: string } {
    return { echoed: request.text };
  }

  @MessagePattern('probe.refuse')
  refuse(): never {
    throw new GatewayError(402, 'No credits left', { metadata: { reason: 'credits' } });
  }

  @MessagePattern('probe.crash')
  crash(): never {
    throw new Error('database password leaked in this message');
  }

  @MessagePattern('probe.slow')
  async slow(): Promise<string> {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return 'late';
  }
}

@Module({ imports: [LoggerModule.forRoot(loggerParams('probe', 'silent'))], controllers: [ProbeController] })
class ProbeModule {}

async function expectGatewayError(promise: Promise<unknown>, status: number): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  expect((error as GatewayError).status).toBe(status);
  return error as GatewayError;
}

describe('RpcClient against a NestJS microservice on a real nats-server', () => {
  let nats: PrivateNatsServer;
  let client: RpcClient;
  let harness: RpcHarness;

  beforeAll(async () => {
    harness = await startRpcHarness(ProbeModule, { queue: 'probe', clientName: 'probe-client', timeoutMs: 300 });
    ({ nats, client } = harness);
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('returns the handler result', async () => {
    await expect(client.send('probe.echo', { text: 'hi' })).resolves.toEqual({ echoed: 'hi' });
  });

  it('validates the payload on the receiving side', async () => {
    const error = await expectGatewayError(client.send('probe.echo', { text: 42 }), 400);
    expect(error.message).toMatch(/text must be a string/);
  });

  it('carries a typed service error with its status, type and metadata', async () => {
    const error = await expectGatewayError(client.send('probe.refuse', {}), 402);
    expect(error.errorType).toBe('payment_required');
    expect(error.metadata).toEqual({ reason: 'credits' });
  });

  it('turns an unexpected service error into an opaque 500 with an error id', async () => {
    const error = await expectGatewayError(client.send('probe.crash', {}), 500);
    expect(error.message).toBe('Internal server error');
    expect(error.metadata?.error_id).toEqual(expect.any(String));
  });

  it('times out a slow call with 504 instead of hanging', async () => {
    const started = Date.now();
    const error = await expectGatewayError(client.send('probe.slow', {}), 504);
    // The 504 is the timeout's (the handler answers 'late' after 1 s); the delay is the machine's, logged.
    expect(error.errorType).toBe('timeout');
    console.log(`slow call refused after ${Date.now() - started} ms`);
  });

  it('answers 503 at once when no service listens on a subject', async () => {
    const started = Date.now();
    const error = await expectGatewayError(client.send('nobody.home', {}, 5_000), 503);
    expect(error.metadata?.reason).toBe('service_unavailable');
    // At once: not after the call's 5 s timeout (how soon below it is the machine's, logged).
    console.log(`no responders answered after ${Date.now() - started} ms`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('fails fast with 503 during a NATS outage and recovers without a restart', async () => {
    await nats.halt();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expectGatewayError(client.send('probe.echo', { text: 'down' }), 503);

    await nats.resume();
    const deadline = Date.now() + 30_000;
    let result: unknown;
    while (Date.now() < deadline) {
      result = await client.send('probe.echo', { text: 'back' }).catch(() => undefined);
      if (result) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(result).toEqual({ echoed: 'back' });
  });
});
