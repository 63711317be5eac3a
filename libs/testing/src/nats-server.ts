import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, isPortOpen, natsServerBinary, waitFor } from '@gw/stack';

/**
 * A private nats-server (the real binary) on a free port, so a test run neither disturbs
 * nor is disturbed by a stack on the shared server, and can be stopped and restarted to
 * test outages. Without the binary, tests fall back to NATS_URL.
 */
export class PrivateNatsServer {
  private process?: ChildProcess;
  private readonly storeDir = mkdtempSync(join(tmpdir(), 'gw-nats-'));

  private constructor(
    readonly port: number,
    private readonly binary: string,
  ) {}

  static async start(): Promise<PrivateNatsServer> {
    const binary = natsServerBinary();
    if (!binary) throw new Error('nats-server is not installed');
    const server = new PrivateNatsServer(await freePort(), binary);
    await server.resume();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts (again) on the same port, like a NATS server coming back after an outage. */
  async resume(): Promise<void> {
    this.process = spawn(this.binary, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], { stdio: 'ignore' });
    await waitFor(() => isPortOpen('127.0.0.1', this.port), `nats-server on ${this.port}`, 10_000);
  }

  /** Stops the server abruptly, as an outage would. */
  async halt(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    await this.halt();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
