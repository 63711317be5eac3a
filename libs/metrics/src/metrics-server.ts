import type { Server } from 'node:http';
import { closeProbeServer, startProbeServer } from './probe-server.js';
import { metricsRegistry } from './registry.js';

const TEXT = { 'content-type': 'text/plain' };

/**
 * `GET /metrics` in Prometheus's text format, on a port of its own: the services speak only NATS,
 * and the gateway keeps its public port for the API (issue 16). Port 0 or unset: no server.
 * `host` is METRICS_HOST: loopback unless the deployment exposes it to Prometheus (issue 35).
 */
export function startMetricsServer(port: number, host: string): Promise<Server> {
  return startProbeServer(
    port,
    host,
    {
      '/metrics': () =>
        metricsRegistry.metrics().then(
          (text) => ({ status: 200, headers: { 'content-type': metricsRegistry.contentType }, body: text }),
          () => ({ status: 500, headers: TEXT, body: 'metrics unavailable\n' }),
        ),
    },
    { status: 404, headers: TEXT, body: 'not found\n' },
  );
}

export const closeMetricsServer: (server: Server) => Promise<void> = closeProbeServer;
