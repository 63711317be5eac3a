/**
 * `node tools/bench/perf/tracing-overhead.ts` (after `npm run build`): what the request id and
 * OpenTelemetry cost per NATS request-reply, in one process against a private
 * nats-server, so the whole-stack bench's noise (other processes on 2 shared cores) does not
 * hide a few microseconds. Modes, interleaved in rounds:
 * - `plain`: a call outside any request: no header (what every call cost before issue 16);
 * - `request-id`: the same call inside a request: `x-request-id` in a NATS header, and the
 *   handler run with it as its request context (what every gateway call costs now, tracing off);
 * - `traced`: tracing on (spans to an exporter that drops them): client span, traceparent,
 *   server span. Last, as the SDK cannot be turned off again in a process.
 * It prints CPU microseconds (client and server, this process) and wall time per call, and the
 * cost of the pieces on their own.
 */
import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { bootstrapService, outgoingCall, ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { initTracing, logContext, runWithRequestId } from '@gw/telemetry';
import { PrivateNatsServer } from '@gw/stack';
import { LoggerModule } from 'nestjs-pino';

class EchoController {
  echo(data: unknown): unknown {
    return data;
  }
}
// Decorators applied by hand: Node runs this file with type stripping, which has no decorator syntax.
MessagePattern('bench.echo')(EchoController.prototype, 'echo', Object.getOwnPropertyDescriptor(EchoController.prototype, 'echo')!);
Controller()(EchoController);
class EchoModule {}
Module({ imports: [LoggerModule.forRoot(loggerParams('bench', 'silent'))], controllers: [EchoController] })(EchoModule);

const CALLS = Number(process.env.CALLS ?? 20_000);
const CONCURRENCY = 32;
const ROUNDS = Number(process.env.ROUNDS ?? 5);

const nats = await PrivateNatsServer.start();
const service = await bootstrapService(EchoModule, { queue: 'bench', natsUrl: nats.url });
const connection = await ResilientNatsConnection.open({ servers: nats.url, name: 'bench-client' });
const client = new RpcClient(connection, 10_000);
const payload = { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] };

async function measure(mode: 'plain' | 'request-id' | 'traced'): Promise<{ cpuMicros: number; wallMicros: number }> {
  let next = 0;
  const worker = async (index: number) => {
    while (next < CALLS) {
      next++;
      if (mode === 'plain') await client.send('bench.echo', payload);
      else await runWithRequestId(`bench-${index}-${next}`, () => client.send('bench.echo', payload));
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, index) => worker(index)));
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { cpuMicros: (used.user + used.system) / CALLS, wallMicros: (wall * 1000) / CALLS };
}

function loop(label: string, iterations: number, body: () => unknown): void {
  for (let index = 0; index < iterations / 10; index++) body(); // warm-up
  const started = process.hrtime.bigint();
  for (let index = 0; index < iterations; index++) body();
  const ns = Number(process.hrtime.bigint() - started) / iterations;
  console.log(`  ${label.padEnd(58)} ${ns.toFixed(0).padStart(6)} ns`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const results: Record<string, Array<{ cpuMicros: number; wallMicros: number }>> = { plain: [], 'request-id': [], traced: [] };

console.log(`NATS request-reply, ${CALLS} calls x ${ROUNDS} rounds, ${CONCURRENCY} in flight, client and server in this process`);
await measure('plain'); // warm-up (JIT, connections)
await measure('request-id');
for (let round = 0; round < ROUNDS; round++) {
  results.plain!.push(await measure('plain'));
  results['request-id']!.push(await measure('request-id'));
}
console.log('Pieces, tracing off:');
loop('outgoingCall() outside a request (no header)', 2_000_000, () => outgoingCall('bench.echo'));
runWithRequestId('bench-request', () =>
  loop('outgoingCall() in a request (x-request-id header)', 500_000, () => outgoingCall('bench.echo')),
);
loop('runWithRequestId(id, fn)', 2_000_000, () => runWithRequestId('bench-request', () => 1));
runWithRequestId('bench-request', () => loop('logContext() (pino mixin) in a request', 2_000_000, logContext));

await initTracing('bench', { exporter: { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined } });
await measure('traced');
for (let round = 0; round < ROUNDS; round++) results.traced!.push(await measure('traced'));
console.log('Pieces, tracing on:');
runWithRequestId('bench-request', () =>
  loop('outgoingCall() in a request (client span + traceparent)', 200_000, () => outgoingCall('bench.echo').span?.end()),
);

console.log('\nmode         CPU µs/call (median, all rounds)            wall µs/call (median)');
for (const [mode, list] of Object.entries(results)) {
  console.log(
    `${mode.padEnd(12)} ${median(list.map((entry) => entry.cpuMicros))
      .toFixed(1)
      .padStart(6)}  [${list.map((entry) => entry.cpuMicros.toFixed(1)).join(', ')}]`.padEnd(58) +
      `${median(list.map((entry) => entry.wallMicros))
        .toFixed(1)
        .padStart(8)}`,
  );
}

client.close();
await connection.close();
await service.close();
await nats.stop();
process.exit(0);
