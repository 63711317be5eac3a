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
const sim = await startSimulator({ port, host });
console.log(`provider-simulator listening on ${sim.url}`);

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
