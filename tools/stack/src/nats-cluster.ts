import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natsServerBinary } from './infra.ts';
import { authenticatedNatsConfig, type BusSeeds } from './nats-auth.ts';
import { freePort, httpOk, isPortOpen, waitFor } from './ports.ts';

/*
 * A private NATS cluster for tests: N local nats-server processes joined by routes, JetStream
 * on each with its own store, the same authorization as the single server. Nodes
 * stop and start one at a time, as a StatefulSet's rolling upgrade does.
 */

export interface PrivateNatsClusterOptions {
  /** Number of nodes; 3 keeps a JetStream quorum with one down. */
  size?: number;
  /** The services' users; unset: no authorization. */
  seeds?: BusSeeds;
}

const CLUSTER_NAME = 'gw-test';

/** One node of the cluster: client, route and monitoring ports and a store that survive its restarts. */
export class PrivateNatsNode {
  readonly name: string;
  readonly port: number;
  readonly monitorPort: number;
  /** nats-server's log (a failed start says why there). */
  readonly logPath: string;
  private readonly binary: string;
  private readonly configPath: string;
  private child: ChildProcess | undefined;

  constructor(options: { name: string; port: number; monitorPort: number; binary: string; configPath: string; logPath: string }) {
    this.name = options.name;
    this.port = options.port;
    this.monitorPort = options.monitorPort;
    this.binary = options.binary;
    this.configPath = options.configPath;
    this.logPath = options.logPath;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the process and waits until it accepts clients. */
  async start(): Promise<void> {
    const log = openSync(this.logPath, 'a');
    this.child = spawn(this.binary, ['-c', this.configPath, '-l', this.logPath], { stdio: ['ignore', log, log] });
    closeSync(log);
    await waitFor(() => isPortOpen('127.0.0.1', this.port), `nats-server ${this.name} on ${this.port} (log: ${this.logPath})`, 15_000);
  }

  /**
   * Waits until the node's JetStream is current: it knows the meta leader and its streams and
   * consumers caught up (`/healthz`), the point where a rolling upgrade moves to the next node.
   */
  async waitCurrent(timeoutMs = 60_000): Promise<void> {
    await waitFor(() => httpOk(`http://127.0.0.1:${this.monitorPort}/healthz`), `nats-server ${this.name} to be current`, timeoutMs, 200);
  }

  /** Sends `signal` (SIGTERM: lame duck and a clean exit; SIGKILL: a crash) and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}

export class PrivateNatsCluster {
  readonly nodes: PrivateNatsNode[];
  private readonly dir: string;

  private constructor(nodes: PrivateNatsNode[], dir: string) {
    this.nodes = nodes;
    this.dir = dir;
  }

  static async start(options: PrivateNatsClusterOptions = {}): Promise<PrivateNatsCluster> {
    const binary = natsServerBinary();
    if (!binary) throw new Error('nats-server is not installed');
    const size = options.size ?? 3;
    const dir = mkdtempSync(join(tmpdir(), 'gw-nats-cluster-'));
    const ports = [];
    for (let index = 0; index < size; index++) ports.push({ client: await freePort(), route: await freePort(), monitor: await freePort() });
    const nodes: PrivateNatsNode[] = [];
    for (const [index, port] of ports.entries()) {
      const name = `n${index + 1}`;
      const storeDir = join(dir, name);
      mkdirSync(storeDir, { recursive: true });
      const base = options.seeds
        ? (JSON.parse(
            await authenticatedNatsConfig({
              host: '127.0.0.1',
              port: port.client,
              storeDir: join(storeDir, 'store'),
              seeds: options.seeds,
            }),
          ) as Record<string, unknown>)
        : { listen: `127.0.0.1:${port.client}`, jetstream: { store_dir: join(storeDir, 'store') } };
      const config = {
        ...base,
        server_name: name,
        http: `127.0.0.1:${port.monitor}`,
        cluster: {
          name: CLUSTER_NAME,
          listen: `127.0.0.1:${port.route}`,
          routes: ports.filter((other) => other !== port).map((other) => `nats-route://127.0.0.1:${other.route}`),
        },
      };
      const configPath = join(storeDir, 'nats.conf');
      writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
      nodes.push(
        new PrivateNatsNode({
          name,
          port: port.client,
          monitorPort: port.monitor,
          binary,
          configPath,
          logPath: join(storeDir, 'nats.log'),
        }),
      );
    }
    const cluster = new PrivateNatsCluster(nodes, dir);
    try {
      await Promise.all(nodes.map((node) => node.start()));
      await Promise.all(nodes.map((node) => node.waitCurrent()));
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** Every node's URL, comma-separated (what NATS_URL takes): clients reconnect to any of them. */
  get url(): string {
    return this.nodes.map((node) => node.url).join(',');
  }

  node(name: string): PrivateNatsNode {
    const found = this.nodes.find((node) => node.name === name);
    if (!found) throw new Error(`no NATS node named ${name}`);
    return found;
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop('SIGKILL')));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
