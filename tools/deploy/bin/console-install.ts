// `node tools/deploy/bin/console-install.ts <out-dir>`: writes the console's own package.json and
// package-lock.json to <out-dir> (docker/console/Containerfile runs `npm ci` there).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { consoleInstall } from '../src/console-install.ts';

const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: console-install.ts <out-dir>');
  process.exit(2);
}
const install = consoleInstall(process.cwd());
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'package.json'), `${JSON.stringify(install.packageJson, null, 2)}\n`);
writeFileSync(join(outDir, 'package-lock.json'), `${JSON.stringify(install.lockfile, null, 2)}\n`);
console.log(`console install: ${install.direct.join(', ')}; ${Object.keys(install.lockfile.packages).length - 1} packages`);
