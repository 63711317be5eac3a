import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// main.ts is run as plain TypeScript, which needs Node >= 23.6 (the workspace's Node 24).
const workspaceNode = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url));
const nodeBin = existsSync(workspaceNode) ? workspaceNode : process.execPath;
const mainTs = fileURLToPath(new URL('./main.ts', import.meta.url));

describe('main.ts CLI', () => {
  it('listens on SIMULATOR_PORT, logs one line, exits cleanly on SIGTERM', async () => {
    const child = spawn(nodeBin, [mainTs], {
      env: { ...process.env, SIMULATOR_PORT: '0', SIMULATOR_HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${String(code)}: ${stderr}`)));
    });
    const match = /^provider-simulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
    expect(match).not.toBeNull();
    const health = await fetch(`${match![1]}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 15_000);
});
