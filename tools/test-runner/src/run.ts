import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateClients, WORKSPACE_ROOT } from '@gw/db-tools';
import { ensureNats, ensurePostgres, ensureRedis, REDIS_URL } from '@gw/stack';

/**
 * Runs the whole suite: checks PostgreSQL, NATS and Redis (starting the local ones when stopped),
 * generates the Prisma clients, builds (end-to-end tests run the built services), lints the
 * module boundaries, checks for unused and unlisted dependencies and unused exports (knip), then runs Vitest's three
 * projects and prints the closing count.
 */
const step = (text: string) => console.log(`==> ${text}`);
const run = (command: string, args: string[]) =>
  spawnSync(command, args, { cwd: WORKSPACE_ROOT, stdio: 'inherit', env: process.env }).status ?? 1;

await ensurePostgres(process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
await ensureNats(process.env.NATS_URL ?? 'nats://127.0.0.1:4222');
await ensureRedis(REDIS_URL);

step('generating Prisma clients');
generateClients();

const nx = join(WORKSPACE_ROOT, 'node_modules/nx/dist/bin/nx.js');
step('building, type-checking and linting');
const checks = run(process.execPath, [nx, 'run-many', '-t', 'build', 'typecheck', 'lint', '--output-style=static']);
if (checks !== 0) console.error('build, typecheck or lint failed: counted as one failed test');

// Unused, unlisted or unresolved npm dependencies (knip.jsonc).
step('checking dependencies');
const knip = run(process.execPath, [join(WORKSPACE_ROOT, 'node_modules/knip/bin/knip.js'), '--dependencies', '--no-config-hints']);
if (knip !== 0) console.error('dependency check (knip) failed: counted as one failed test');
// Exports nothing imports (the list above names each): delete them, or stop exporting them.
const exportsKnip = run(process.execPath, [
  join(WORKSPACE_ROOT, 'node_modules/knip/bin/knip.js'),
  '--include',
  'exports',
  '--no-config-hints',
]);
if (exportsKnip !== 0) console.error('unused-export check (knip --include exports) failed: counted as one failed test');
const checksFailed = (checks === 0 ? 0 : 1) + (knip === 0 ? 0 : 1) + (exportsKnip === 0 ? 0 : 1);

const resultsDir = join(WORKSPACE_ROOT, '.test-results');
const resultsFile = join(resultsDir, 'vitest.json');
mkdirSync(resultsDir, { recursive: true });
rmSync(resultsFile, { force: true });
step('running unit, integration and end-to-end tests');
const vitest = join(WORKSPACE_ROOT, 'node_modules/vitest/vitest.mjs');
// vitest.config.ts adds the JSON reporter when GW_TEST_JSON is set.
process.env.GW_TEST_JSON = resultsFile;
const vitestStatus = run(process.execPath, [vitest, 'run', ...process.argv.slice(2)]);

interface VitestJson {
  numPassedTests: number;
  numFailedTests: number;
  numTotalTestSuites: number;
  numFailedTestSuites: number;
}
let passed = 0;
let failed = checksFailed;
try {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as VitestJson;
  passed += results.numPassedTests;
  failed += results.numFailedTests;
  // A file that fails to load has no tests to count: count the file itself.
  if (results.numFailedTests === 0 && results.numFailedTestSuites > 0) failed += results.numFailedTestSuites;
} catch {
  failed += 1;
  console.error('Vitest wrote no results: counted as one failed test');
}
if (vitestStatus !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
