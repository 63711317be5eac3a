import { readFileSync } from 'node:fs';
import { trustConfiguredServiceAccount } from './gemini-auth.ts';
import { startSimulator } from './index.ts';

const port = Number(process.env.SIMULATOR_PORT ?? 8790);
const host = process.env.SIMULATOR_HOST ?? '127.0.0.1';

if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`provider-simulator: invalid SIMULATOR_PORT ${String(process.env.SIMULATOR_PORT)}`);
  process.exit(1);
}

// The service account the stack gave inference for Vertex AI (SIMULATOR_GOOGLE_SERVICE_ACCOUNT), if any.
trustConfiguredServiceAccount();
// The same routes over HTTPS too (Entra ID's token endpoint needs it), with the stack's certificate.
const tlsPort = Number(process.env.SIMULATOR_TLS_PORT ?? '');
const tls =
  process.env.SIMULATOR_TLS_CERT_FILE && process.env.SIMULATOR_TLS_KEY_FILE && Number.isInteger(tlsPort) && tlsPort > 0
    ? {
        cert: readFileSync(process.env.SIMULATOR_TLS_CERT_FILE, 'utf8'),
        key: readFileSync(process.env.SIMULATOR_TLS_KEY_FILE, 'utf8'),
        port: tlsPort,
      }
    : undefined;
const sim = await startSimulator({ port, host, tls });
console.log(`provider-simulator listening on ${sim.url}${sim.tlsUrl ? ` and ${sim.tlsUrl}` : ''}`);

let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  sim.close().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(`provider-simulator: error while closing after ${signal}:`, err);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
