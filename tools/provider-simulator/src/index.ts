import type { AddressInfo } from 'node:net';
import { createSimulatorServer } from './server.ts';

export interface SimulatorOptions {
  /** 0 (default) picks an ephemeral port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  /** The same routes over HTTPS on a port of their own (tlsPort, 0 by default), with this certificate (PEM). */
  tls?: { cert: string; key: string; port?: number };
}

export interface RunningSimulator {
  url: string;
  port: number;
  /** `https://host:port` when started with `tls`. */
  tlsUrl?: string;
  close(): Promise<void>;
}

type Listening = { port: number; close(): Promise<void> };

function listen(server: ReturnType<typeof createSimulatorServer>, port: number, host: string): Promise<Listening> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      let closing: Promise<void> | undefined;
      resolve({
        port: (server.address() as AddressInfo).port,
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

/** Starts the provider simulator; resolves once it is listening. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const host = options.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const plain = await listen(createSimulatorServer(), options.port ?? 0, host);
  const secure = options.tls
    ? await listen(createSimulatorServer(options.tls), options.tls.port ?? 0, host).catch(async (error: unknown) => {
        await plain.close();
        throw error;
      })
    : undefined;
  return {
    url: `http://${urlHost}:${plain.port}`,
    port: plain.port,
    ...(secure ? { tlsUrl: `https://${urlHost}:${secure.port}` } : {}),
    close: async () => {
      await Promise.all([plain.close(), secure?.close()]);
    },
  };
}

export { createSimulatorServer } from './server.ts';
export { resetFaultCounters, parseDirectives, type Directives } from './faults.ts';
export { countTokens } from './tokens.ts';
export { configureBatches } from './batches/batch-jobs.ts';
export { SIM_AWS_ACCESS_KEY_ID, SIM_AWS_SECRET_ACCESS_KEY } from './bedrock-auth.ts';
export { SIM_AZURE_API_KEY } from './azure.ts';
export { APP_SERVICE_TOKEN_PATH, SIM_IDENTITY_HEADER, SIM_MANAGED_IDENTITY_CLIENT_ID } from './managed-identity.ts';
export { SIM_ENTRA_CLIENT_ID, SIM_ENTRA_CLIENT_SECRET, SIM_ENTRA_TENANT_ID } from './entra.ts';
export { createTlsMaterial, type TlsMaterial } from './tls-material.ts';
export { configureGoogleTokens, createServiceAccount, trustServiceAccount, type ServiceAccountJson } from './gemini-auth.ts';
