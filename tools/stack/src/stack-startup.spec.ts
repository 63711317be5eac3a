import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { assertRunning, type StartedProcess } from './stack.ts';

function started(name: string, code: string): StartedProcess {
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  return { name, pid: child.pid!, child };
}

describe('waiting for the stack to start', () => {
  it('gives up at once, naming the process, when one of them has ended', async () => {
    const running = started('management', 'setTimeout(() => {}, 10_000)');
    const ended = started('batch-2', 'process.exit(3)');
    try {
      await once(ended.child, 'exit');
      expect(() => assertRunning([running])).not.toThrow();
      expect(() => assertRunning([running, ended])).toThrow('batch-2 ended (3) before the stack was ready');
      running.child.kill('SIGTERM');
      await once(running.child, 'exit');
      expect(() => assertRunning([running])).toThrow('management ended (SIGTERM) before the stack was ready');
    } finally {
      running.child.kill('SIGKILL');
    }
  });
});
