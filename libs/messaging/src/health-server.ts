import { createServer, type Server } from 'node:http';
import type { Observable } from 'rxjs';

/** Readiness of this replica: true while it can take NATS requests. */
export type ReadinessCheck = () => boolean;

/**
 * The probe port of a NATS-only service (Kubernetes cannot probe a NATS subscription):
 * `GET /health/live` answers 200 while the process runs, `GET /health/ready` 200 while the
 * replica is connected to NATS and 503 otherwise. It answers only these two paths and is
 * meant for the kubelet, not for clients (the chart's NetworkPolicy keeps it in the pod).
 * Node's own http server: two routes do not justify a framework.
 */
export async function startHealthServer(port: number, ready: ReadinessCheck, host = '0.0.0.0'): Promise<Server> {
  const server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    const status = path === '/health/live' ? 200 : path === '/health/ready' ? (ready() ? 200 : 503) : 404;
    response.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
    response.end(JSON.stringify({ status: status === 200 ? 'ok' : status === 503 ? 'unavailable' : 'not_found' }));
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  server.unref();
  return server;
}

/** Follows a NestJS transport's status stream; ready while the last status is "connected". */
export function connectedWhile(status: Observable<string>): ReadinessCheck {
  let connected = false;
  status.subscribe((value) => {
    connected = value === 'connected';
  });
  return () => connected;
}
