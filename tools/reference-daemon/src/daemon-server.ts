import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DaemonVerifier, JwksKeySource, type DaemonVerifierOptions } from '@gw/daemon-verifier';

export interface ReferenceDaemonOptions {
  internId: string;
  /** The gateway's `.../v1/daemon/jwks.json`. */
  jwksUrl: string;
  port?: number;
  host?: string;
  windowSeconds?: number;
  requireV2?: boolean;
  /** Largest body read, in bytes (default 1 MiB, the gateway's sign limit). */
  maxBodyBytes?: number;
}

export interface RunningDaemon {
  url: string;
  server: Server;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * A daemon that does nothing but check who is asking: every request must carry a valid
 * gateway signature for this intern over its exact body (and, for v2, its method, path and
 * an unused nonce). Accepted: 200 `{ok, user, version, keyId, bodyBytes}`; refused: 401
 * `{ok: false, reason}`. An example for daemon authors and the other end of the e2e tests.
 */
export async function startReferenceDaemon(options: ReferenceDaemonOptions): Promise<RunningDaemon> {
  const verifierOptions: DaemonVerifierOptions = {
    internId: options.internId,
    keys: new JwksKeySource({ url: options.jwksUrl }),
    windowSeconds: options.windowSeconds,
    requireV2: options.requireV2,
  };
  const verifier = new DaemonVerifier(verifierOptions);
  const maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  const server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    void (async () => {
      const body = await readBody(request, maxBodyBytes);
      if (!body) return answer(413, { ok: false, reason: 'payload_too_large' });
      const result = await verifier.verify({ headers: request.headers, method: request.method ?? 'GET', path: request.url ?? '/', body });
      if (!result.ok) return answer(401, result);
      answer(200, { ...result, bodyBytes: body.length });
    })().catch(() => answer(500, { ok: false, reason: 'internal_error' }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    server,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
