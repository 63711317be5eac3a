import { createServer, type Server } from 'node:http';
import type { ReplicaLifecycle } from './replica-lifecycle.js';

/**
 * A service's probes over HTTP, for an orchestrator (the services themselves speak only NATS):
 * `GET /health` 200 while the process runs; `GET /health/ready` 200 when this replica can
 * serve (connected to NATS, not draining), 503 otherwise.
 */
export async function startHealthServer(
  port: number,
  host: string,
  lifecycle: ReplicaLifecycle,
  connected: () => boolean,
): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    let status = 404;
    let body: Record<string, unknown> = { status: 'not_found' };
    if (request.method === 'GET' && path === '/health') {
      status = 200;
      body = { status: 'ok' };
    } else if (request.method === 'GET' && path === '/health/ready') {
      const reason = lifecycle.draining ? 'draining' : connected() ? undefined : 'nats_disconnected';
      status = reason ? 503 : 200;
      body = reason ? { status: 'unavailable', reason } : { status: 'ok' };
    }
    response.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export function closeHealthServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
