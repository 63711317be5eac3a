import { spawn, type ChildProcess } from 'node:child_process';
import { redisServerBinary } from './infra.ts';
import { freePort, isPortOpen, waitFor } from './ports.ts';

/**
 * A redis-server of a test's own on a free port (nothing on disk, as the limiter's counters
 * need nothing kept), which the test can stop and start again for real.
 */
export class PrivateRedisServer {
  readonly port: number;
  private readonly binary: string;
  private child: ChildProcess | undefined;

  private constructor(port: number, binary: string) {
    this.port = port;
    this.binary = binary;
  }

  static async start(): Promise<PrivateRedisServer> {
    const binary = redisServerBinary();
    if (!binary) throw new Error('redis-server is not installed');
    const server = new PrivateRedisServer(await freePort(), binary);
    await server.resume();
    return server;
  }

  /** The running server's process id (the bench counts its CPU); undefined while stopped. */
  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async resume(): Promise<void> {
    this.child = spawn(this.binary, ['--bind', '127.0.0.1', '--port', String(this.port), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await waitFor(() => isPortOpen('127.0.0.1', this.port), `redis-server on ${this.port}`, 15_000);
  }

  /** Stops the server (SIGTERM: a clean shutdown, as a restart does) and waits for its exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}
