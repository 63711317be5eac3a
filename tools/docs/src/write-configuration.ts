import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configurationDoc } from './configuration-doc.ts';

/** `npm run docs`: writes docs/configuration.md from the env classes. */
const root = join(import.meta.dirname, '../../..');
writeFileSync(join(root, 'docs/configuration.md'), configurationDoc(root));
