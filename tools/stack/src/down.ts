import { isAlive, stopProcessesGracefully } from './stack.ts';
import { readPidsFile, removePidsFile } from './state.ts';

/** `npm run down`: stops what `npm run up` started, its own nats-server included (not PostgreSQL or Redis, which it found). */
const pids = readPidsFile();
if (!pids) {
  console.log('Nothing to stop: no stack was started from this folder.');
} else {
  const running = Object.entries(pids).filter(([, pid]) => isAlive(pid));
  await stopProcessesGracefully(running.map(([, pid]) => pid));
  removePidsFile();
  console.log(running.length > 0 ? `Stopped ${running.map(([name]) => name).join(', ')}.` : 'The stack was not running.');
}
