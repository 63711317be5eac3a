/**
 * `node tools/bench/perf/served-subjects.ts` (after `npm run build`): what a non-streamed
 * inference answer costs on the NATS hop, caller and service measured apart:
 * the service runs in a child process (its CPU read from /proc), the caller here
 * (`process.cpuUsage()`), against a private nats-server. The machine's other load hits every
 * mode alike, as the modes are interleaved in rounds. Modes, each inside a request (the gateway
 * sends `x-request-id`), with a chat-sized request (principal, two messages) and answer:
 * - `packet`: the caller parses the reply packet and serialises the answer again for its client;
 * - `json`: `sendJson`: the answer's JSON text, forwarded as it is.
 */
import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { bootstrapService, ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { runWithRequestId } from '@gw/telemetry';
import { PrivateNatsServer } from '@gw/stack';
import { LoggerModule } from 'nestjs-pino';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const ANSWER = {
  id: 'chatcmpl-5f2b8c1e-8f0a-4d53-9a57-0e6f1b7c2d44',
  object: 'chat.completion',
  created: 1_764_250_000,
  model: 'gpt-4o-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hello! How can I help you today? '.repeat(8), refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 24,
    completion_tokens: 72,
    total_tokens: 96,
    cost: 0.000_046_8,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  },
  provider: 'openai',
  system_fingerprint: 'fp_0ba0d124f1',
};

class BenchController {
  served(): Promise<unknown> {
    return Promise.resolve(ANSWER);
  }
}
// Decorators applied by hand: Node runs this file with type stripping, which has no decorator syntax.
MessagePattern('bench.served')(BenchController.prototype, 'served', Object.getOwnPropertyDescriptor(BenchController.prototype, 'served')!);
Controller()(BenchController);
class BenchModule {}
Module({ imports: [LoggerModule.forRoot(loggerParams('bench', 'silent'))], controllers: [BenchController] })(BenchModule);

if (process.argv[2] === 'serve') {
  await bootstrapService(BenchModule, { queue: 'bench', natsUrl: process.argv[3]! });
  console.log('ready');
} else {
  await compare();
}

async function compare(): Promise<void> {
  const CALLS = Number(process.env.CALLS ?? 10_000);
  const CONCURRENCY = 32;
  const ROUNDS = Number(process.env.ROUNDS ?? 5);
  const nats = await PrivateNatsServer.start();
  const child = spawn(process.execPath, [process.argv[1]!, 'serve', nats.url], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line === 'ready') resolve();
    });
  });
  const connection = await ResilientNatsConnection.open({ servers: nats.url, name: 'bench-client' });
  const client = new RpcClient(connection, 10_000);
  const principal = {
    workspaceId: randomUUID(),
    keyId: randomUUID(),
    keyHash: 'a'.repeat(64),
    userId: randomUUID(),
    role: 'member',
    tier: 'pro',
    hasPersonalIdentity: false,
    limits: { requestsPerMinute: 600, tokensPerMinute: 200_000 },
    allowedModels: null,
    byok: false,
  };
  const payload = {
    principal,
    body: {
      model: 'openai/gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are a helpful assistant that answers briefly.' },
        { role: 'user', content: 'Say hello to the reader of this benchmark, in one friendly sentence.' },
      ],
      max_tokens: 100,
    },
    serviceMetadata: false,
    requestId: randomUUID(),
  };
  const ticksPerSecond = 100; // USER_HZ on Linux
  const childCpuMicros = (): number => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6;
  };

  type Mode = 'packet' | 'json';
  const call: Record<Mode, () => Promise<string>> = {
    packet: async () => JSON.stringify(await client.send('bench.served', payload)),
    json: () => client.sendJson('bench.served', payload),
  };
  // Both answer the same bytes.
  const texts = await Promise.all(Object.values(call).map((send) => send()));
  if (new Set(texts).size !== 1) throw new Error('the modes answer different bytes');

  async function measure(mode: Mode): Promise<{ caller: number; service: number }> {
    let next = 0;
    const worker = async (index: number) => {
      while (next < CALLS) {
        next++;
        await runWithRequestId(`bench-${index}-${next}`, call[mode]);
      }
    };
    const service = childCpuMicros();
    const cpu = process.cpuUsage();
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, index) => worker(index)));
    const used = process.cpuUsage(cpu);
    return { caller: (used.user + used.system) / CALLS, service: (childCpuMicros() - service) / CALLS };
  }

  const modes: Mode[] = ['packet', 'json'];
  const results = new Map<Mode, Array<{ caller: number; service: number }>>(modes.map((mode) => [mode, []]));
  for (const mode of modes) await measure(mode); // warm-up (JIT, connections)
  for (let round = 0; round < ROUNDS; round++) for (const mode of modes) results.get(mode)!.push(await measure(mode));

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`${CALLS} calls x ${ROUNDS} rounds, ${CONCURRENCY} in flight; CPU µs per call, median [rounds]`);
  console.log(`answer ${texts[0]!.length} bytes, request ${JSON.stringify(payload).length} bytes`);
  for (const [mode, list] of results) {
    const caller = list.map((entry) => entry.caller);
    const service = list.map((entry) => entry.service);
    console.log(
      `${mode.padEnd(14)} caller ${median(caller).toFixed(1).padStart(6)} [${caller.map((v) => v.toFixed(0)).join(', ')}]` +
        `   service ${median(service).toFixed(1).padStart(6)} [${service.map((v) => v.toFixed(0)).join(', ')}]`,
    );
  }
  client.close();
  await connection.close();
  child.kill('SIGTERM');
  await nats.stop();
  process.exit(0);
}
