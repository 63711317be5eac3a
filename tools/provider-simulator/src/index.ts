import type { AddressInfo } from 'node:net';
import { createSimulatorServer } from './server.ts';

export interface SimulatorOptions {
  /** 0 (default) picks an ephemeral port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
}

export interface RunningSimulator {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the provider simulator; resolves once it is listening. */
export function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const host = options.host ?? '127.0.0.1';
  const server = createSimulatorServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${urlHost}:${port}`,
        port,
        close() {
          closing ??= new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}

export { createSimulatorServer } from './server.ts';
export { resetFaultCounters, parseDirectives, type Directives } from './faults.ts';
export { countTokens } from './tokens.ts';
export { configureBatches } from './batches/batch-jobs.ts';
export { SIM_AWS_ACCESS_KEY_ID, SIM_AWS_SECRET_ACCESS_KEY } from './bedrock-auth.ts';
export { SIM_AZURE_API_KEY } from './azure.ts';
export { configureGoogleTokens, createServiceAccount, trustServiceAccount, type ServiceAccountJson } from './gemini-auth.ts';
