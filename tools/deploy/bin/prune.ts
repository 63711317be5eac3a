// `node tools/deploy/bin/prune.ts <out-dir> [image...]`: the production file tree of each
// image under <out-dir>/<image> (docker/Dockerfile's build stage runs it after the build).
import { join } from 'node:path';
import { IMAGE_TARGETS, prune } from '../src/prune.ts';

const [outDir, ...names] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: prune.ts <out-dir> [image...]');
  process.exit(2);
}
for (const name of names.length > 0 ? names : Object.keys(IMAGE_TARGETS)) {
  const started = Date.now();
  const count = await prune(name, join(outDir, name));
  console.log(`${name}: ${count} files in ${Date.now() - started} ms`);
}
