import { createHash } from 'node:crypto';
import { relative } from 'node:path';
import { linkIdentity } from '@gw/oidc-provider/headless-login';
import { WORKSPACE_ROOT } from '@gw/db-tools';
import { DEV_CATALOG_PATHS, IsolatedStackRun, PrivateRedisServer, type IsolatedStack } from '@gw/stack';
import { runStoreProcesses, type NamedProcess } from './cpu.ts';
import { batchScenario, type BatchScenarioResult } from './batch-scenario.ts';
import { chatVersusPortkey, formatPairedRounds } from './chat-goals.ts';
import { formatGoals } from './goals.ts';
import { probe, problemsOf, round, run, type RunFigures, type Target } from './measure.ts';
import { cacheHits, cacheHitsTarget, formatCacheHits } from './cache-hits.ts';
import { parseOptions, USAGE, type BenchOptions } from './options.ts';
import { ensurePortkeyInstalled, PORTKEY_VERSION, startPortkey, type RunningPortkey } from './portkey.ts';
import {
  compare,
  formatAdapterStreams,
  formatConcurrency,
  formatStreams,
  formatTable,
  machineInfo,
  targetResult,
  writeResult,
  type BenchResult,
  type TargetResult,
} from './report.ts';
import {
  concurrencyScenario,
  LONG_MODEL,
  LONG_UPSTREAM_MODEL,
  upstreamConnections,
  writeBenchCatalog,
  type ConcurrencyScenarioResult,
} from './concurrency-scenario.ts';
import { adapterStreamScenario, type AdapterStreamScenarioResult } from './adapter-stream-scenario.ts';
import { streamScenario, type StreamScenarioResult, type StreamTargetSpec } from './stream-scenario.ts';
import { generationsScenario, type GenerationsScenarioResult } from './generations-scenario.ts';
import { consoleScenario, formatConsole, type ConsoleScenarioResult } from './console-scenario.ts';

/**
 * `npm run bench`: starts an isolated stack (own databases, private nats-server, free ports)
 * and measures the same chat completion sent to the provider simulator directly and through
 * the gateway, with autocannon. See tools/bench/README.md.
 */

const DIRECT_MODEL = 'gpt-4o-mini';
const GATEWAY_MODEL = 'sim/gpt-4o-mini';
const MESSAGES = [{ role: 'user', content: 'Say hello' }];
/** The same request as a Responses-API body (translated to the same upstream chat completion). */
const RESPONSES_BODY = { model: GATEWAY_MODEL, input: 'Say hello' };

/** What a daemon request's body would be; the bench signs its digest (spec §2.5). */
const SIGNED_BODY_SHA256 = createHash('sha256').update('{"command":"status"}').digest('hex');
/** Signatures per second through the gateway the project aims at (issue 14). */
const SIGN_GOAL_PER_SECOND = 5_000;

const step = (text: string) => console.log(`==> ${text}`);

/**
 * The signer: the seeded key's user linked through the real OIDC login at the run's local
 * provider (tools/oidc-provider), and an intern of the seeded workspace to sign for.
 */
async function prepareSigning(stack: IsolatedStack): Promise<string> {
  await linkIdentity({ baseUrl: stack.baseUrl, apiKey: stack.apiKey, login: 'demo', password: 'demo-password' });
  const response = await fetch(`${stack.baseUrl}/interns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.apiKey}` },
    body: JSON.stringify({ name: 'bench-intern' }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`creating the bench intern answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { id: string }).id;
}

function targets(stack: IsolatedStack, processes: NamedProcess[], internId: string): Target[] {
  const json = { 'content-type': 'application/json' };
  const simulator = processes.filter((entry) => entry.name === 'provider-simulator');
  return [
    {
      name: 'direct',
      label: 'simulator direct',
      url: `${stack.simulatorUrl}/openai/v1/chat/completions`,
      headers: { ...json, authorization: 'Bearer sk-sim' },
      body: JSON.stringify({ model: DIRECT_MODEL, messages: MESSAGES }),
      processes: simulator,
    },
    {
      name: 'gateway',
      label: 'through the gateway',
      url: `${stack.baseUrl}/chat/completions`,
      headers: { ...json, authorization: `Bearer ${stack.apiKey}` },
      body: JSON.stringify({ model: GATEWAY_MODEL, messages: MESSAGES }),
      processes,
    },
    {
      name: 'responses',
      label: 'gateway /v1/responses',
      url: `${stack.baseUrl}/responses`,
      headers: { ...json, authorization: `Bearer ${stack.apiKey}` },
      body: JSON.stringify(RESPONSES_BODY),
      processes,
    },
    {
      name: 'sign',
      label: 'gateway daemon sign',
      url: `${stack.baseUrl}/interns/${internId}/daemon/sign`,
      headers: { ...json, authorization: `Bearer ${stack.apiKey}` },
      body: JSON.stringify({ bodySha256: SIGNED_BODY_SHA256 }),
      // No upstream: the simulator is idle on this path.
      processes: processes.filter((entry) => entry.name !== 'provider-simulator'),
    },
  ];
}

/** The same request through Portkey's gateway, told to use the simulator as an OpenAI host. */
function portkeyTarget(stack: IsolatedStack, portkey: RunningPortkey, simulator: NamedProcess[]): Target {
  return {
    name: 'portkey',
    label: `through Portkey ${PORTKEY_VERSION}`,
    url: `${portkey.url}/v1/chat/completions`,
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer sk-sim',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${stack.simulatorUrl}/openai/v1`,
    },
    body: JSON.stringify({ model: DIRECT_MODEL, messages: MESSAGES }),
    processes: [{ name: 'portkey', pid: portkey.pid }, ...simulator],
  };
}

/** The same streamed request (12 chunks with the usage chunk and [DONE]) to the simulator, the gateway and Portkey. */
function streamTargets(chat: Target[]): StreamTargetSpec[] {
  const streamed = (body: string) =>
    JSON.stringify({ ...(JSON.parse(body) as object), stream: true, stream_options: { include_usage: true } });
  return chat
    .filter(
      (target): target is Target & { name: StreamTargetSpec['name'] } =>
        target.name === 'direct' || target.name === 'gateway' || target.name === 'portkey',
    )
    .map((target) => {
      const long = target.name === 'direct' ? LONG_UPSTREAM_MODEL : target.name === 'gateway' ? LONG_MODEL : undefined;
      return {
        name: target.name,
        label: target.label,
        url: target.url,
        headers: target.headers,
        body: streamed(target.body),
        processes: target.processes,
        ...(long ? { longBody: streamed(JSON.stringify({ ...(JSON.parse(target.body) as object), model: long })) } : {}),
      };
    });
}

function describe(figures: RunFigures): string {
  const problems = problemsOf(figures);
  return (
    `${figures.requestsPerSecond.toFixed(1)} req/s, CPU ${figures.cpuMicrosPerRequest.total} µs/request, latency mean ${figures.latencyMs.mean.toFixed(3)} ms ` +
    `(p50 ${figures.latencyMs.p50.toFixed(3)}, p99 ${figures.latencyMs.p99.toFixed(3)}), ${figures.totalRequests} requests` +
    (problems ? `  !! ${problems}` : '')
  );
}

async function measureTarget(target: Target, options: BenchOptions, signal: AbortSignal): Promise<TargetResult> {
  const warmups: RunFigures[] = [];
  const measure = async (connections: number, duration: number): Promise<RunFigures> => {
    if (options.warmup > 0) {
      step(`${target.label}: warm-up, ${connections} connection${connections === 1 ? '' : 's'}, ${options.warmup} s`);
      warmups.push(await run(target, connections, options.warmup, signal));
      signal.throwIfAborted();
    }
    step(`${target.label}: ${connections} connection${connections === 1 ? '' : 's'}, ${duration} s`);
    const figures = await run(target, connections, duration, signal);
    signal.throwIfAborted();
    console.log(`    ${describe(figures)}`);
    return figures;
  };
  const throughput = await measure(options.connections, options.throughputDuration);
  const latency = await measure(1, options.latencyDuration);
  return targetResult(target, throughput, latency, warmups);
}

function problemsOfTarget(target: TargetResult): string[] {
  const problems: string[] = [];
  const runs: Array<[string, RunFigures]> = [
    [`${target.label}, ${target.throughput.connections} connections`, target.throughput],
    [`${target.label}, 1 connection`, target.latency],
  ];
  for (const [what, figures] of runs) {
    const problem = problemsOf(figures);
    if (problem) problems.push(`${what}: ${problem}`);
  }
  if (target.warmup.non2xx > 0 || target.warmup.errors > 0) {
    problems.push(`${target.label}, warm-up: ${target.warmup.non2xx} non-2xx, ${target.warmup.errors} errors`);
  }
  return problems;
}

/** The round with the median throughput and the round with the median latency, warm-ups summed. */
function medianResult(results: TargetResult[]): TargetResult {
  const middle = <T>(items: T[], key: (item: T) => number): T => [...items].sort((a, b) => key(a) - key(b))[Math.floor(items.length / 2)]!;
  return {
    ...results[0]!,
    throughput: middle(results, (result) => result.throughput.requestsPerSecond).throughput,
    latency: middle(results, (result) => result.latency.latencyMs.mean).latency,
    warmup: {
      totalRequests: results.reduce((sum, result) => sum + result.warmup.totalRequests, 0),
      non2xx: results.reduce((sum, result) => sum + result.warmup.non2xx, 0),
      errors: results.reduce((sum, result) => sum + result.warmup.errors, 0),
    },
  };
}

async function main(): Promise<number> {
  let options: BenchOptions | undefined;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`bench: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (!options) {
    console.log(USAGE);
    return 0;
  }

  const machine = machineInfo();
  const controller = new AbortController();
  const isolated = new IsolatedStackRun('bench');
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) {
      console.error(`bench: ${signal} again: killing the child processes; databases ${isolated.prefix}_* may be left behind`);
      isolated.kill();
      process.exit(130);
    }
    console.error(`\nbench: ${signal}: stopping and cleaning up (press Ctrl-C again to force)`);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  console.log(
    `Machine: ${machine.cpuCount} × ${machine.cpuModel}, ${machine.totalMemoryGiB} GiB, Node ${machine.nodeVersion}, load average ${machine.loadAverageAtStart.join(' ')}\n` +
      `Note: autocannon (the load generator) runs in this process and shares the ${machine.cpuCount} cores with the simulator,\n` +
      `the gateway, the four services, nats-server and PostgreSQL. The figures compare the two paths on this\n` +
      `machine; they are not the capacity of a deployment.\n`,
  );

  let failed = false;
  let exitCode = 0;
  let runningPortkey: RunningPortkey | undefined;
  let redis: PrivateRedisServer | undefined;
  try {
    step(`starting an isolated stack (databases ${isolated.prefix}_*, private nats-server, log level warn)`);
    // The bench's own models (the concurrency scenario's slow and firehose ones, the stream
    // scenario's long reply), in a catalog file of the run's own loaded after the dev stack's, and an
    // upstream connection pool as large as the streams it holds at once (inference's default, 256
    // per origin, would queue the rest behind the slow ones).
    const env =
      options.concurrencyStreams > 0 || options.streams || options.adapterStreams
        ? {
            MODEL_CATALOG_PATHS: writeBenchCatalog(DEV_CATALOG_PATHS, isolated.stateDir, options.concurrencySeconds),
            ...(options.concurrencyStreams > 0
              ? { UPSTREAM_CONNECTIONS: String(upstreamConnections(options.concurrencyStreams + options.stalledClients)) }
              : {}),
          }
        : undefined;
    // Each call holds its worst case until it ends (a Bedrock Claude stream without max_tokens: $3),
    // so 32 at once outgrow the dev stack's 100 credits and are refused (402, or 503 once the key's
    // lease cannot be topped up): the bench measures the path, not the credit check.
    process.env.SEED_CREDITS ??= '100000';
    // A Redis of the run's own, and only its own database backends counted: the machine's shared
    // servers also serve other sessions, whose work would be counted as this run's.
    redis = await PrivateRedisServer.start();
    const stack = await isolated.start(controller.signal, { ...(env ? { env } : {}), redisUrl: redis.url });
    const redisPid = redis.pid!;
    const stores = () => runStoreProcesses(isolated.prefix, redisPid);
    step('linking the seeded user through the local OIDC provider and creating an intern to sign for');
    const internId = await prepareSigning(stack);
    const [direct, gateway, responses, sign] = targets(stack, isolated.processes(), internId).map((target) => ({ ...target, stores }));
    const cached = cacheHitsTarget(gateway!);
    await probe(direct!);
    await probe(gateway!);
    await probe(responses!);
    await probe(sign!);
    // The first cached request stores the answer; every later one is a hit.
    await probe(cached);
    let portkeySkipped: string | undefined = options.portkey ? undefined : 'skipped with --no-portkey';
    let portkey: Target | undefined;
    if (options.portkey) {
      step(`installing (once) and starting Portkey's gateway ${PORTKEY_VERSION}`);
      const installed = ensurePortkeyInstalled(WORKSPACE_ROOT);
      if ('error' in installed) {
        portkeySkipped = installed.error;
        console.warn(`bench: Portkey not measured: ${installed.error}`);
      } else {
        runningPortkey = await startPortkey(installed.script, controller.signal);
        portkey = portkeyTarget(stack, runningPortkey, direct!.processes);
        await probe(portkey);
      }
    }

    // Alternating rounds, so a slow spell of this shared machine hits every path alike.
    const measured = [direct!, gateway!, responses!, sign!, cached, ...(portkey ? [portkey] : [])];
    const rounds: Record<string, TargetResult[]> = Object.fromEntries(measured.map((target) => [target.name, []]));
    for (let index = 1; index <= options.rounds; index += 1) {
      step(`round ${index} of ${options.rounds}`);
      for (const target of measured) rounds[target.name]!.push(await measureTarget(target, options, controller.signal));
    }
    const directResult = medianResult(rounds.direct!);
    const gatewayResult = medianResult(rounds.gateway!);
    const portkeyResult = rounds.portkey ? medianResult(rounds.portkey) : undefined;
    const paired = rounds.portkey ? chatVersusPortkey(rounds.direct!, rounds.gateway!, rounds.portkey) : undefined;
    const responsesResult = medianResult(rounds.responses!);
    const signResult = medianResult(rounds.sign!);
    const cachedResult = medianResult(rounds.cached!);

    let batch: BatchScenarioResult | undefined;
    if (options.batchLines > 0) {
      step(
        `batch scenario: ${options.batchLines.toLocaleString('en')} chat lines run by the gateway, interactive chat at 1 connection before and during it`,
      );
      batch = await batchScenario(stack, gateway!, options.batchLines, Math.max(options.latencyDuration, 5), controller.signal);
    }

    let streams: StreamScenarioResult | undefined;
    if (options.streams) {
      streams = await streamScenario(
        streamTargets(measured),
        { direct: DIRECT_MODEL, gateway: GATEWAY_MODEL },
        {
          connections: options.connections,
          throughputSeconds: options.throughputDuration,
          latencySeconds: options.latencyDuration,
          warmupSeconds: options.warmup,
          rounds: options.rounds,
        },
        controller.signal,
      );
    }
    let adapterStreams: AdapterStreamScenarioResult | undefined;
    if (options.adapterStreams) {
      adapterStreams = await adapterStreamScenario(
        { baseUrl: stack.baseUrl, apiKey: stack.apiKey, processes: isolated.processes() },
        { connections: options.connections, seconds: options.throughputDuration, rounds: options.rounds },
        controller.signal,
      );
    }
    let concurrency: ConcurrencyScenarioResult | undefined;
    if (options.concurrencyStreams > 0) {
      const gatewayProcess = isolated.process('api-gateway');
      const inferenceProcess = isolated.process('inference');
      concurrency = await concurrencyScenario(
        stack.baseUrl,
        stack.apiKey,
        {
          gateway: { pid: gatewayProcess.pid, metricsUrl: stack.metricsUrls['api-gateway'] },
          inference: { pid: inferenceProcess.pid, metricsUrl: stack.metricsUrls.inference },
        },
        {
          streams: options.concurrencyStreams,
          seconds: options.concurrencySeconds,
          stalledClients: options.stalledClients,
          stalledTokens: options.stalledTokens,
        },
        controller.signal,
      );
    }

    let generations: GenerationsScenarioResult | undefined;
    if (options.generationRows > 0) {
      step(
        `generations scenario: ${options.generationRows.toLocaleString('en')} rows seeded, then the list and analytics one request at a time`,
      );
      generations = await generationsScenario(stack, options.generationRows, controller.signal);
    }

    let consoleLoads: ConsoleScenarioResult | undefined;
    if (options.consoleLoads > 0) {
      step(`console scenario: ${options.consoleLoads} cold loads of the overview in Chromium, signed in with the management key`);
      consoleLoads = await consoleScenario(stack, options.consoleLoads);
    }

    const problems = [
      ...Object.values(rounds).flat().flatMap(problemsOfTarget),
      ...(generations?.problems ?? []),
      ...(consoleLoads?.problems ?? []),
      ...(streams?.problems ?? []),
      ...(adapterStreams?.problems ?? []),
      ...(concurrency?.problems ?? []),
    ];
    if (batch && (batch.status !== 'completed' || batch.requestCounts.completed !== batch.lines))
      problems.push(`batch scenario: ${batch.status}, ${JSON.stringify(batch.requestCounts)}`);
    const result: BenchResult = {
      timestamp: new Date().toISOString(),
      ok: problems.length === 0,
      problems,
      machine,
      options: { ...options, logLevel: 'warn', model: { direct: DIRECT_MODEL, gateway: GATEWAY_MODEL } },
      targets: {
        direct: directResult,
        gateway: gatewayResult,
        responses: responsesResult,
        sign: signResult,
        cached: cachedResult,
        ...(portkeyResult ? { portkey: portkeyResult } : {}),
      },
      cacheHits: cacheHits(directResult, gatewayResult, cachedResult),
      rounds: rounds as BenchResult['rounds'],
      comparison: {
        ...compare(directResult, gatewayResult),
        responses: { ...compare(directResult, responsesResult), versusChatCompletions: compare(gatewayResult, responsesResult) },
        ...(portkeyResult && paired
          ? {
              portkey: {
                ...compare(directResult, portkeyResult),
                gatewayThroughputMultiple: round(
                  gatewayResult.throughput.requestsPerSecond / Math.max(1e-9, portkeyResult.throughput.requestsPerSecond),
                  2,
                ),
                paired,
              },
            }
          : {}),
      },
      ...(portkeySkipped ? { portkeySkipped } : {}),
      ...(batch ? { batch } : {}),
      ...(streams ? { streams } : {}),
      ...(adapterStreams ? { adapterStreams } : {}),
      ...(concurrency ? { concurrency } : {}),
      ...(generations ? { generations } : {}),
      ...(consoleLoads ? { console: consoleLoads } : {}),
      ...(paired || streams || adapterStreams || concurrency || generations || consoleLoads
        ? {
            goals: [
              ...(paired?.goals ?? []),
              ...(streams?.goals ?? []),
              ...(adapterStreams?.goals ?? []),
              ...(concurrency?.goals ?? []),
              ...(generations?.goals ?? []),
              ...(consoleLoads?.goals ?? []),
            ],
          }
        : {}),
    };
    const file = writeResult(WORKSPACE_ROOT, result);

    console.log(`\n${formatTable(result)}\n`);
    console.log(
      `Gateway added latency: ${result.comparison.addedMeanLatencyMs.toFixed(3)} ms (mean, 1 connection); ` +
        `gateway throughput is ${(result.comparison.throughputRatio * 100).toFixed(1)}% of direct at ${options.connections} connections.`,
    );
    const { versusChatCompletions } = result.comparison.responses;
    console.log(
      `/v1/responses: ${responsesResult.throughput.requestsPerSecond.toFixed(1)} req/s (${(versusChatCompletions.throughputRatio * 100).toFixed(1)}% of chat completions), ` +
        `${versusChatCompletions.addedMeanLatencyMs >= 0 ? '+' : ''}${versusChatCompletions.addedMeanLatencyMs.toFixed(3)} ms mean over chat completions at 1 connection.`,
    );
    const signatures = signResult.throughput.requestsPerSecond;
    console.log(
      `Daemon signatures through the gateway: ${signatures.toFixed(1)}/s at ${options.connections} connections ` +
        `(goal ≥ ${SIGN_GOAL_PER_SECOND.toLocaleString('en')}/s: ${signatures >= SIGN_GOAL_PER_SECOND ? 'met' : 'not met'}), ` +
        `${signResult.latency.latencyMs.mean.toFixed(3)} ms mean at 1 connection, CPU ${signResult.throughput.cpuMicrosPerRequest.total} µs per signature.`,
    );
    console.log(formatCacheHits(result.cacheHits!));
    if (result.comparison.portkey) {
      console.log(
        `Against Portkey's gateway ${PORTKEY_VERSION} on the same machine and simulator: ×${result.comparison.portkey.gatewayThroughputMultiple.toFixed(2)} its throughput; ` +
          `Portkey adds ${result.comparison.portkey.addedMeanLatencyMs.toFixed(3)} ms mean at 1 connection.`,
      );
      console.log(`${formatGoals(result.comparison.portkey.paired.goals)}\n  ${formatPairedRounds(result.comparison.portkey.paired)}`);
    }
    if (batch) {
      const { idle, duringBatch } = batch.interactive;
      console.log(
        `Batch of ${batch.lines.toLocaleString('en')} lines: uploaded in ${batch.uploadSeconds} s, ${batch.status} in ${batch.runSeconds} s (${batch.linesPerSecond} lines/s); ` +
          `interactive chat p50/p99 ${idle.p50Ms.toFixed(2)}/${idle.p99Ms.toFixed(2)} ms idle, ${duringBatch.p50Ms.toFixed(2)}/${duringBatch.p99Ms.toFixed(2)} ms while it ran.`,
      );
    }
    if (streams) console.log(`\n${formatStreams(streams)}`);
    if (adapterStreams) console.log(`\n${formatAdapterStreams(adapterStreams)}`);
    if (concurrency) console.log(`\n${formatConcurrency(concurrency)}\n`);
    if (generations) {
      const { disk } = generations;
      console.log(
        `Generations: ${generations.rows.toLocaleString('en')} rows seeded in ${generations.seedSeconds} s; ` +
          `${(disk.generationsBytesPerMillionRows / 1_048_576).toFixed(1)} MiB per million rows (${disk.partitions} daily partitions, indexes included); ` +
          `rollups ${disk.rollupRows.toLocaleString('en')} rows, ${(disk.rollupBytes / 1_048_576).toFixed(1)} MiB.`,
      );
      for (const [name, figures] of [...Object.entries(generations.list), ...Object.entries(generations.analytics)]) {
        console.log(`  ${name}: p50 ${figures.p50Ms} ms, p95 ${figures.p95Ms} ms, max ${figures.maxMs} ms (${figures.samples} requests)`);
      }
      console.log(formatGoals(generations.goals));
    }
    if (consoleLoads) console.log(`${formatConsole(consoleLoads)}\n${formatGoals(consoleLoads.goals)}`);
    console.log(`Load generator and services shared ${machine.cpuCount} cores (${machine.cpuModel}).`);
    console.log(`Results: ${relative(WORKSPACE_ROOT, file)} and bench-results/latest.json`);
    if (problems.length > 0) {
      console.error(`\nbench: not every request returned 200 (or a stream was incomplete):\n  ${problems.join('\n  ')}`);
      failed = true;
      exitCode = 1;
    }
  } catch (error) {
    failed = true;
    if (controller.signal.aborted) {
      console.error('bench: interrupted; no results written');
      exitCode = 130;
    } else {
      console.error(`bench failed: ${(error as Error).message}`);
      exitCode = 1;
    }
  } finally {
    step('stopping the stack and dropping the databases');
    await runningPortkey?.stop();
    await redis?.stop();
    try {
      const keepLogs = failed && !controller.signal.aborted;
      await isolated.teardown(keepLogs);
      if (keepLogs) console.error(`service logs kept in ${isolated.logDir}`);
    } catch (error) {
      console.error(`bench: ${(error as Error).message}`);
      exitCode ||= 1;
    }
  }
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
