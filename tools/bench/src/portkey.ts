import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, httpOk, waitFor } from '@gw/stack';

/**
 * Portkey's open-source gateway, the rival the team's speed goal is set against (8× its
 * throughput). It is installed on demand from the npm registry into a git-ignored folder, at a
 * pinned version, with its install scripts off: it is something we measure, not a dependency.
 */
export const PORTKEY_VERSION = '1.15.2';

/**
 * Portkey 1.15.2 takes `@hono/node-server@^1.3.3`; npm resolves the newest 1.x, whose response
 * handling answers every stream with 500 `TypeError: immutable` on Node 24
 * (Portkey-AI/gateway#1389). 1.14.1 is inside Portkey's own range and streams, so the install
 * pins it with an npm override: Portkey is measured as it works, not as a broken install.
 */
const NODE_SERVER_VERSION = '1.14.1';

export interface RunningPortkey {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

function installDir(root: string): string {
  return join(root, '.bench-cache', `portkey-${PORTKEY_VERSION}-node-server-${NODE_SERVER_VERSION}`);
}

/** Installs the pinned version once; returns the path of its server script, or an error text. */
export function ensurePortkeyInstalled(root: string): { script: string } | { error: string } {
  const dir = installDir(root);
  const script = join(dir, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  if (existsSync(script)) return { script };
  mkdirSync(dir, { recursive: true });
  // A manifest of its own, so the override applies (npm reads overrides from the root package only).
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        private: true,
        dependencies: { '@portkey-ai/gateway': PORTKEY_VERSION },
        overrides: { '@hono/node-server': NODE_SERVER_VERSION },
      },
      null,
      2,
    )}\n`,
  );
  const install = spawnSync('npm', ['install', '--prefix', dir, '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (install.status !== 0 || !existsSync(script)) {
    return {
      error: `npm install @portkey-ai/gateway@${PORTKEY_VERSION} failed: ${(install.stderr || install.stdout).trim().split('\n').slice(-3).join(' ')}`,
    };
  }
  return { script };
}

/** Starts Portkey on a free loopback port (headless: no console UI), production mode. */
export async function startPortkey(script: string, signal: AbortSignal): Promise<RunningPortkey> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [script, `--port=${port}`, '--headless'], {
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    });
  try {
    await waitFor(
      async () => {
        signal.throwIfAborted();
        return httpOk(`${url}/`);
      },
      `Portkey gateway on ${url}`,
      30_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid!, stop };
}
