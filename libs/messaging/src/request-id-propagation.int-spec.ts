import { Controller, Logger, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { currentRequestId, runWithRequestId, tracingEnabled } from '@gw/telemetry';
import { LoggerModule } from 'nestjs-pino';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient } from './rpc-client.js';
import { startRpcHarness, type RpcHarness } from './spec-helpers.js';

/* With tracing OFF (the default): the request id still travels in NATS headers and names every log line of the handler. */

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n'))
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

@Controller()
class WhoController {
  private readonly log = new Logger('Who');

  @MessagePattern('who.asks')
  async who(): Promise<{ requestId: string | null }> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.log.warn('handled');
    return { requestId: currentRequestId() ?? null };
  }
}

const params = loggerParams('who', 'info');
@Module({ imports: [LoggerModule.forRoot({ ...params, pinoHttp: [params.pinoHttp as object, sink] })], controllers: [WhoController] })
class WhoModule {}

describe('request id over NATS (tracing off)', () => {
  let client: RpcClient;
  let harness: RpcHarness;

  beforeAll(async () => {
    harness = await startRpcHarness(WhoModule, { queue: 'who', clientName: 'who-client', timeoutMs: 2_000 });
    ({ client } = harness);
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('reaches the handler and its log lines, without any trace field', async () => {
    expect(tracingEnabled()).toBe(false);
    const replies = await Promise.all(
      ['req-a', 'req-b'].map((id) => runWithRequestId(id, () => client.send<{ requestId: string | null }>('who.asks', {}))),
    );
    expect(replies.map((reply) => reply.requestId)).toEqual(['req-a', 'req-b']);
    const handled = lines.filter((line) => line.msg === 'handled');
    expect(handled.map((line) => line.request_id).sort()).toEqual(['req-a', 'req-b']);
    for (const line of handled) expect(line.trace_id).toBeUndefined();
  });

  it('sends none outside a request', async () => {
    await expect(client.send('who.asks', {})).resolves.toEqual({ requestId: null });
  });
});
