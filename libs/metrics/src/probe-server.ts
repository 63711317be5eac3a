import { createServer, type ServerResponse, type Server } from 'node:http';

/** One answer of a probe server. */
export interface ProbeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** `GET <path>` -> its answer (a route must not reject: it answers its own failure). */
export type ProbeRoutes = Readonly<Record<string, () => ProbeAnswer | Promise<ProbeAnswer>>>;

/**
 * The small HTTP server of the ports beside NATS (`/metrics`, the services' `/health` probes):
 * `GET` on a listed path gets its route's answer, anything else `notFound`; the query string is
 * ignored. Resolves once listening.
 */
export async function startProbeServer(port: number, host: string, routes: ProbeRoutes, notFound: ProbeAnswer): Promise<Server> {
  const byPath = new Map(Object.entries(routes));
  const server = createServer((request, response) => {
    const route = request.method === 'GET' ? byPath.get((request.url ?? '').split('?')[0]!) : undefined;
    const answer = route ? route() : notFound;
    if (answer instanceof Promise) void answer.then((settled) => send(response, settled));
    else send(response, answer);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export function closeProbeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function send(response: ServerResponse, answer: ProbeAnswer): void {
  response.writeHead(answer.status, answer.headers).end(answer.body);
}
