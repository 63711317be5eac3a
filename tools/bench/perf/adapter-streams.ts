/**
 * `node tools/bench/perf/adapter-streams.ts [openai|bedrock|gemini ...]` (after `npm run build`):
 * CPU of this process per streamed chunk through the OpenAI, Bedrock and Gemini adapters alone (no
 * gateway, no bus) against the provider simulator in a child process, a short and a long reply
 * each, interleaved in rounds; the marginal figure (long − short) is what the adapter's HTTP
 * client, decoder and mapping cost per chunk, and the short reply's figure what a call costs.
 * `bedrock-sdk-command` is Bedrock through the SDK's command pipeline (`client.send`) with the same
 * event-stream decoder. Add `--cpu-prof` to node to see where it goes.
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { validateEnv } from '@gw/config';
import { WORKSPACE_ROOT } from '@gw/db-tools';

const STREAMS = Number(process.env.STREAMS ?? 300);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LONG = 'reply-tokens=180';

const dist = (path: string) => import(join(WORKSPACE_ROOT, 'apps/inference/dist', path));
const { InferenceEnv } = await dist('env.js');
const { UpstreamClient } = await dist('upstream/upstream-client.js');
const { OpenAiAdapter } = await dist('providers/openai/openai.adapter.js');
const { GeminiAdapter } = await dist('providers/gemini/gemini.adapter.js');
const { BedrockAdapter } = await dist('providers/bedrock/bedrock.adapter.js');
const { BedrockClients } = await dist('providers/bedrock/bedrock-clients.js');

const child = spawn(process.execPath, [join(WORKSPACE_ROOT, 'tools/provider-simulator/src/main.ts')], {
  env: { ...process.env, SIMULATOR_PORT: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
const url = /listening on (\S+)/.exec(line)![1]!;

const env = validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x' });
const upstream = new UpstreamClient(env);
const clients = new BedrockClients(env);
const aws = JSON.stringify({ accessKeyId: 'AKIASIMULATOR0000001', secretAccessKey: 'simulator/secret/key/0000000000000000000' });
const endpoint = (provider: object, upstreamModel: string) => ({
  provider,
  upstreamModel,
  pricing: {},
  supportedParameters: new Set<string>(),
});
const withLong = (model: string, long: boolean) => (long ? `${model};${LONG}` : model);

type Subject = { adapter: { stream(e: unknown, b: object, c: object): Promise<AsyncIterable<unknown>> }; endpoint(long: boolean): unknown };
/** The same adapter through the SDK's command pipeline (`client.send`), as it called Bedrock before BedrockCalls. */
const { ConverseCommand, ConverseStreamCommand } = await import('@aws-sdk/client-bedrock-runtime');
type Client = { send(command: unknown, options: object): Promise<{ stream?: AsyncIterable<unknown> }> };
class SdkCommandAdapter extends BedrockAdapter {
  protected override readonly calls = {
    converse: (client: Client, input: object, signal?: AbortSignal) =>
      client.send(new ConverseCommand(input as never), { abortSignal: signal }),
    converseStream: async (client: Client, input: object, signal: AbortSignal) =>
      (await client.send(new ConverseStreamCommand(input as never), { abortSignal: signal })).stream!,
  };
}
const bedrockEndpoint = (long: boolean) =>
  endpoint(
    { id: 'sim-bedrock', name: 'sim', format: 'bedrock', baseUrl: `${url}/bedrock`, apiKey: aws, region: 'us-east-1' },
    withLong('us.anthropic.claude-sonnet-4-5-20250929-v1:0', long),
  );

const subjects: Record<string, Subject> = {
  openai: {
    adapter: new OpenAiAdapter(upstream),
    endpoint: (long) =>
      endpoint({ id: 'sim', name: 'sim', format: 'openai', baseUrl: `${url}/openai/v1`, apiKey: 'sk-sim' }, withLong('gpt-4o-mini', long)),
  },
  bedrock: { adapter: new BedrockAdapter(clients), endpoint: bedrockEndpoint },
  'bedrock-sdk-command': { adapter: new SdkCommandAdapter(clients), endpoint: bedrockEndpoint },
  gemini: {
    adapter: new GeminiAdapter(upstream),
    endpoint: (long) =>
      endpoint(
        { id: 'sim-gemini', name: 'sim', format: 'gemini', baseUrl: `${url}/v1beta`, apiKey: 'sim-gemini-key' },
        withLong('gemini-2.5-flash', long),
      ),
  },
};

const body = { model: 'm', messages: [{ role: 'user', content: 'Say hello' }], stream: true, stream_options: { include_usage: true } };

/** CPU µs of this process per stream and events per stream, `STREAMS` streams at `CONCURRENCY`. */
async function run(subject: Subject, long: boolean): Promise<{ micros: number; events: number }> {
  let events = 0;
  let left = STREAMS;
  const start = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0)
        for await (const _ of await subject.adapter.stream(subject.endpoint(long), body, { apiKey: undefined })) events += 1;
    }),
  );
  const used = process.cpuUsage(start);
  return { micros: (used.user + used.system) / STREAMS, events: events / STREAMS };
}

const chosen = process.argv.slice(2).filter((name) => name in subjects);
const names = chosen.length > 0 ? chosen : Object.keys(subjects);
try {
  for (const name of names) await run(subjects[name]!, false); // warm-up
  const figures = new Map<string, number[]>(names.map((name) => [name, []]));
  for (let round = 1; round <= ROUNDS; round += 1)
    for (const name of names) {
      const short = await run(subjects[name]!, false);
      const long = await run(subjects[name]!, true);
      const marginal = (long.micros - short.micros) / (long.events - short.events);
      figures.get(name)!.push(marginal);
      console.log(
        `${name.padEnd(20)} round ${round}: ${short.micros.toFixed(0)} µs/stream (${short.events} events), ${long.micros.toFixed(0)} µs/stream (${long.events} events): ` +
          `${marginal.toFixed(1)} µs per more event`,
      );
    }
  for (const [name, values] of figures) {
    const sorted = [...values].sort((a, b) => a - b);
    console.log(`${name.padEnd(20)} median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} µs per streamed event`);
  }
} finally {
  clients.onModuleDestroy();
  await upstream.onModuleDestroy();
  child.kill();
}
