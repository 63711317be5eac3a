import type { Server } from 'node:http';
import { closeProbeServer, startProbeServer, type ProbeAnswer } from '@gw/metrics';
import type { ReplicaLifecycle } from './replica-lifecycle.js';

const json = (status: number, body: Record<string, unknown>): ProbeAnswer => ({
  status,
  headers: { 'content-type': 'application/json', connection: 'close' },
  body: JSON.stringify(body),
});

/**
 * A service's probes over HTTP, for an orchestrator (the services themselves speak only NATS):
 * `GET /health` 200 while the process runs; `GET /health/ready` 200 when this replica can
 * serve (connected to NATS, not draining), 503 otherwise.
 */
export function startHealthServer(port: number, host: string, lifecycle: ReplicaLifecycle, connected: () => boolean): Promise<Server> {
  return startProbeServer(
    port,
    host,
    {
      '/health': () => json(200, { status: 'ok' }),
      '/health/ready': () => {
        const reason = lifecycle.draining ? 'draining' : connected() ? undefined : 'nats_disconnected';
        return reason ? json(503, { status: 'unavailable', reason }) : json(200, { status: 'ok' });
      },
    },
    json(404, { status: 'not_found' }),
  );
}

export const closeHealthServer: (server: Server) => Promise<void> = closeProbeServer;
