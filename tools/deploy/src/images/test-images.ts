import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dropDatabase } from '@gw/db-tools';
import { PrivateNatsServer, freePort, httpOk, runPrefix, testDatabaseNames, testDatabaseUrl, waitFor } from '@gw/stack';
import { WORKSPACE_ROOT } from '../helm.ts';
import { IMAGE_TARGETS } from '../prune.ts';
import { ensureBaseImage } from './base-image.ts';
import { snapshotContext } from './context.ts';
import { type ChrootProcess, inspectImage, podman, startFromImage } from './podman.ts';

/*
 * npm run test:images (tools/deploy/bin/test-images.sh): build every image on a local base,
 * then start each from its own filesystem and prove it works:
 *   migrate            creates and migrates a fresh database per service, exits 0
 *   provider-simulator answers /health
 *   search-simulator   answers /health
 *   the four services  answer /health/ready on HEALTH_PORT (connected to NATS, DB reachable)
 *   api-gateway        answers /health/ready (every service replied over NATS) and serves a
 *                      chat completion through inference to the simulator image
 *   all                exit 0 on SIGTERM as PID 1 (their own signal handling, no init)
 * Options: --skip-build (reuse the images of the last build), --only a,b (build these).
 */

const args = process.argv.slice(2);
const skipBuild = args.includes('--skip-build');
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? (args[onlyIndex + 1] ?? '').split(',') : undefined;
const OUT_DIR = join(WORKSPACE_ROOT, '.stack/test-images');
const tagOf = (image: string): string => `localhost/inference-gateway/${image}:test`;
const SERVICES = ['management', 'inference', 'batch', 'intern-signing'] as const;
const started = Date.now();
const timings: Record<string, number> = {};
const results: Array<{ image: string; check: string; ok: boolean; detail: string }> = [];

function seconds(since: number): number {
  return Math.round((Date.now() - since) / 100) / 10;
}

function record(image: string, check: string, ok: boolean, detail = ''): void {
  results.push({ image, check, ok, detail });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${image}: ${check}${detail ? ` (${detail})` : ''}`);
}

function build(baseTag: string): void {
  const context = snapshotContext();
  const revision = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: WORKSPACE_ROOT, encoding: 'utf8' }).trim();
  const version = (JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  for (const image of Object.keys(IMAGE_TARGETS)) {
    if (only && !only.includes(image)) continue;
    const since = Date.now();
    console.log(`==> podman build --target ${image}`);
    podman(
      [
        'build',
        '--isolation=chroot',
        '--format=docker',
        '--layers',
        '-f',
        join(context, 'docker/Dockerfile'),
        '--target',
        image,
        '--build-arg',
        `BASE_IMAGE=${baseTag}`,
        '--build-arg',
        `VERSION=${version}`,
        '--build-arg',
        `REVISION=${revision}`,
        '-t',
        tagOf(image),
        context,
      ],
      { stdio: 'inherit' },
    );
    timings[`build ${image}`] = seconds(since);
  }
  rmSync(context, { recursive: true, force: true });
}

async function run(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  let since = Date.now();
  const base = ensureBaseImage();
  timings[base.built ? 'base image (debootstrap + node)' : 'base image (cached)'] = seconds(since);
  if (!skipBuild) build(base.tag);

  const sizes: Record<string, string> = {};
  for (const image of Object.keys(IMAGE_TARGETS)) {
    const config = inspectImage(tagOf(image));
    sizes[image] = `${(config.sizeBytes / 1e6).toFixed(0)} MB`;
    record(image, 'runs as a numeric non-root user', /^[1-9]\d*(:\d+)?$/.test(config.user), config.user);
    record(
      image,
      'OCI labels source, version, revision',
      ['source', 'version', 'revision'].every((k) => config.labels[`org.opencontainers.image.${k}`]),
    );
    if (image !== 'migrate') record(image, 'has a HEALTHCHECK', Boolean(config.healthcheck?.length));
  }
  sizes['base'] = `${(inspectImage(base.tag).sizeBytes / 1e6).toFixed(0)} MB`;

  const prefix = runPrefix('images');
  const nats = await PrivateNatsServer.start();
  const running: Array<{ name: string; process: ChrootProcess }> = [];
  const start = (name: string, image: string, env: Record<string, string>, imageArgs?: string[], entrypoint?: string[]): ChrootProcess => {
    const process = startFromImage(tagOf(image), { env, args: imageArgs, entrypoint, logDir: OUT_DIR, name });
    running.push({ name, process });
    return process;
  };
  try {
    // 1. migrate: one fresh database per service, created and migrated by the image.
    since = Date.now();
    for (const service of SERVICES) {
      const urlVar = `${service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`;
      const migrate = start(`migrate-${service}`, 'migrate', { [urlVar]: testDatabaseUrl(prefix, service) }, [service]);
      const code = await migrate.exited;
      const applied = /(\d+) applied/.exec(migrate.log())?.[1];
      record(
        'migrate',
        `migrates ${testDatabaseNames(prefix)[service]}`,
        code === 0 && Number(applied) > 0,
        `exit ${code}, ${applied ?? '?'} applied`,
      );
    }
    timings['migrate 4 databases'] = seconds(since);

    // 2. simulator, the four services, then the gateway.
    since = Date.now();
    const simulatorPort = await freePort();
    start('provider-simulator', 'provider-simulator', { SIMULATOR_PORT: String(simulatorPort), SIMULATOR_HOST: '127.0.0.1' });
    await expectHttp('provider-simulator', `http://127.0.0.1:${simulatorPort}/health`, '/health answers 200');
    const searchPort = await freePort();
    start('search-simulator', 'search-simulator', { SEARCH_SIMULATOR_PORT: String(searchPort), SEARCH_SIMULATOR_HOST: '127.0.0.1' });
    await expectHttp('search-simulator', `http://127.0.0.1:${searchPort}/health`, '/health answers 200');

    const common = { NATS_URL: nats.url, LOG_LEVEL: 'info' };
    const healthPorts: Record<string, number> = {};
    for (const service of SERVICES) {
      healthPorts[service] = await freePort();
      start(service, service, {
        ...common,
        DATABASE_URL: testDatabaseUrl(prefix, service),
        HEALTH_PORT: String(healthPorts[service]),
        ...(service === 'management' ? { BYOK_KEKS: `v1:${randomBytes(32).toString('base64')}` } : {}),
        ...(service === 'intern-signing' ? { DAEMON_SIGNING_KEYS: `k1:${randomBytes(32).toString('base64')}` } : {}),
        // The image ships only the real catalog: its `openai` provider is pointed at the simulator.
        ...(service === 'inference'
          ? {
              OPENAI_BASE_URL: `http://127.0.0.1:${simulatorPort}/openai/v1`,
              OPENAI_API_KEY: 'sk-sim',
              SEARXNG_URL: `http://127.0.0.1:${searchPort}`,
              WEB_FETCH_ALLOWED_ORIGINS: `http://127.0.0.1:${searchPort}`,
            }
          : {}),
      });
    }
    await Promise.all(
      SERVICES.map((service) =>
        expectHttp(service, `http://127.0.0.1:${healthPorts[service]}/health/ready`, '/health/ready answers 200 (NATS connected)'),
      ),
    );
    const gatewayPort = await freePort();
    start('api-gateway', 'api-gateway', { ...common, PORT: String(gatewayPort), HOST: '127.0.0.1' });
    await expectHttp(
      'api-gateway',
      `http://127.0.0.1:${gatewayPort}/health/ready`,
      '/health/ready answers 200 (every service replied over NATS)',
    );
    timings['start every service until ready'] = seconds(since);

    // 3. One real request through the images: a key made by management's CLI in its image,
    //    a chat completion through gateway -> inference -> simulator.
    since = Date.now();
    const createKey = async (name: string, keyArgs: string[]): Promise<{ secret: string; workspaceId: string; userId: string }> => {
      const cli = start(
        name,
        'management',
        { MANAGEMENT_DATABASE_URL: testDatabaseUrl(prefix, 'management') },
        ['--json', ...keyArgs],
        ['node', 'apps/management/dist/cli/create-key.js'],
      );
      const code = await cli.exited;
      if (code !== 0) throw new Error(`create-key exited ${String(code)}: ${cli.log()}`);
      return JSON.parse(cli.log().trim().split('\n').at(-1) ?? '{}') as { secret: string; workspaceId: string; userId: string };
    };
    try {
      const owner = await createKey('create-key-management', ['--management', '--name', 'images', '--credits', '10']);
      const key = await createKey('create-key-standard', [
        '--standard',
        '--name',
        'images',
        '--workspace',
        owner.workspaceId,
        '--user',
        owner.userId,
      ]);
      const response = await fetch(`http://127.0.0.1:${gatewayPort}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hello from the images' }] }),
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await response.json()) as { choices?: Array<{ message?: { content?: string } }>; usage?: { cost?: number } };
      const content = body.choices?.[0]?.message?.content ?? '';
      record(
        'api-gateway',
        'chat completion through gateway, inference and simulator images',
        response.status === 200 && content.length > 0,
        `${response.status}, ${content.length} chars, cost ${String(body.usage?.cost)}`,
      );
    } catch (error) {
      record('api-gateway', 'chat completion through gateway, inference and simulator images', false, (error as Error).message);
    }
    timings['chat completion through the images'] = seconds(since);

    // 4. SIGTERM to every long-running entry point: each must exit 0 by itself.
    since = Date.now();
    for (const { name, process } of running.filter((r) => !r.name.startsWith('migrate') && !r.name.startsWith('create-key')).reverse()) {
      process.terminate();
      const code = await Promise.race([process.exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 30_000))]);
      record(name, 'exits 0 on SIGTERM as PID 1', code === 0, `exit ${String(code)}`);
    }
    timings['stop every service'] = seconds(since);
  } finally {
    for (const { process } of running) if (process.child.exitCode === null) process.child.kill('SIGKILL');
    await nats.stop();
    for (const service of SERVICES) await dropDatabase(testDatabaseUrl(prefix, service)).catch(() => undefined);
    for (const image of Object.keys(IMAGE_TARGETS)) {
      try {
        podman(['image', 'unmount', tagOf(image)]);
      } catch {
        // not mounted
      }
    }
  }

  timings['total'] = seconds(started);
  const failed = results.filter((r) => !r.ok);
  const summary = { when: new Date().toISOString(), timingsSeconds: timings, sizes, checks: results.length, failed: failed.length };
  writeFileSync(join(OUT_DIR, 'results.json'), `${JSON.stringify({ ...summary, results }, null, 2)}\n`);
  console.log('\nimage sizes:', sizes);
  console.log('timings (s):', timings);
  console.log(`\n${results.length - failed.length} passed, ${failed.length} failed (logs and results.json in ${OUT_DIR})`);
  if (failed.length > 0) process.exitCode = 1;
}

async function expectHttp(image: string, url: string, check: string): Promise<void> {
  const since = Date.now();
  try {
    await waitFor(() => httpOk(url), url, 90_000, 250);
    record(image, check, true, `${seconds(since)} s`);
  } catch (error) {
    record(image, check, false, (error as Error).message);
  }
}

await run();
