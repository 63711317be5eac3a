import type { AddressInfo } from 'node:net';
import { createSearchSimulatorServer } from './server.ts';

export interface RunningSearchSimulator {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the search simulator (port 0, the default, picks an ephemeral port); resolves once it listens. */
export function startSearchSimulator(options: { port?: number; host?: string } = {}): Promise<RunningSearchSimulator> {
  const host = options.host ?? '127.0.0.1';
  const server = createSearchSimulatorServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
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

export { createSearchSimulatorServer } from './server.ts';
export { CORPUS, pageText, type CorpusPage } from './corpus.ts';
export { rank, searchResponse } from './search.ts';
export { minimalPdf, minimalPdfDataUrl } from './pdf.ts';
