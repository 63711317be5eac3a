import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, httpOk, waitFor } from '@gw/stack';

/**
 * Portkey's open-source gateway, the rival the team's speed goal is set against (8× its
 * throughput). It is installed on demand from the npm registry into a git-ignored folder, at a
 * pinned version, with its install scripts off: it is something we measure, not a dependency.
 */
export const PORTKEY_VERSION = '1.15.2';

export interface RunningPortkey {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

function installDir(root: string): string {
  return join(root, '.bench-cache', `portkey-${PORTKEY_VERSION}`);
}

/** Installs the pinned version once; returns the path of its server script, or an error text. */
export function ensurePortkeyInstalled(root: string): { script: string } | { error: string } {
  const dir = installDir(root);
  const script = join(dir, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  if (existsSync(script)) return { script };
  mkdirSync(dir, { recursive: true });
  const install = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-package-lock',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      `@portkey-ai/gateway@${PORTKEY_VERSION}`,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
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
