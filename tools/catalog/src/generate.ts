import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'prettier';
import { buildCatalog } from './catalog-build.ts';

/**
 * `node tools/catalog/src/generate.ts` writes apps/inference/catalog/models.json from
 * tools/catalog; `--check` only compares and exits 1 when the committed file differs (a hand
 * edit, or sources changed without regenerating).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, '..', '..', 'apps', 'inference', 'catalog', 'models.json');

async function renderCatalog(): Promise<string> {
  return format(JSON.stringify(buildCatalog(root)), { parser: 'json', printWidth: 140 });
}

const text = await renderCatalog();
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== text) {
    console.error('apps/inference/catalog/models.json differs from what tools/catalog generates: run npm run catalog:generate');
    process.exit(1);
  }
  console.log('apps/inference/catalog/models.json is what tools/catalog generates');
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
