import { startSearchSimulator } from './index.ts';

const port = Number(process.env.SEARCH_SIMULATOR_PORT ?? 8792);
const host = process.env.SEARCH_SIMULATOR_HOST ?? '127.0.0.1';
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`search-simulator: invalid SEARCH_SIMULATOR_PORT ${String(process.env.SEARCH_SIMULATOR_PORT)}`);
  process.exit(1);
}

const sim = await startSearchSimulator({ port, host });
console.log(`search-simulator listening on ${sim.url}`);

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  sim.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
