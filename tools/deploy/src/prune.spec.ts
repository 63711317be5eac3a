import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prune } from './prune.ts';

// The migrate image's tree: traced from a package entry (.mjs) plus copied TypeScript tools.
// The service images need a build first; npm run test:images covers them end to end.
describe('prune', () => {
  const out = mkdtempSync(join(tmpdir(), 'gw-prune-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('gives the migrate image the runner, every migration and pg with its dependencies, and no test file', async () => {
    const count = await prune('migrate', join(out, 'migrate'));
    const has = (path: string): boolean => existsSync(join(out, 'migrate', path));
    expect(count).toBeGreaterThan(20);
    expect(has('tools/db/src/migrate-cli.ts')).toBe(true);
    expect(has('node_modules/pg/esm/index.mjs')).toBe(true);
    expect(has('node_modules/pg-protocol/package.json')).toBe(true);
    for (const service of ['management', 'inference', 'batch', 'intern-signing'])
      expect(has(`prisma/${service}/migrations`), service).toBe(true);
    expect(has('tools/db/src/migrate.int-spec.ts')).toBe(false);
    expect(has('node_modules/@nestjs')).toBe(false);
  }, 60_000);

  it('refuses an unknown image', async () => {
    await expect(prune('nope', join(out, 'nope'))).rejects.toThrow(/unknown image nope/);
  });
});
