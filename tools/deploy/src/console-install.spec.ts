import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consoleImports, consoleInstall } from './console-install.ts';
import { WORKSPACE_ROOT } from './helm.ts';

// The console image's install, cut from the real lockfile; the image build (npm run test:images -- --console) runs npm ci on it.
describe('consoleInstall', () => {
  const workspaceLock = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; integrity?: string }>;
  };
  const install = consoleInstall(WORKSPACE_ROOT);
  const packages = install.lockfile.packages;

  it("installs what the app's sources import and vite, not what only its tests use", () => {
    const imports = consoleImports(WORKSPACE_ROOT);
    // vite from the app's vite.config.ts.
    expect(imports).toEqual(expect.arrayContaining(['@mantine/core', '@mantine/charts', 'react', 'react-dom', 'vite']));
    expect(imports).not.toContain('playwright-core');
    expect(imports).not.toContain('openai');
    expect(install.direct).toEqual(imports);
    expect(Object.keys(packages[''] as object)).toContain('devDependencies');
  });

  it('keeps every package at the workspace lockfile’s version and hash, with all it needs and nothing of the services', () => {
    const paths = Object.keys(packages).filter((path) => path !== '');
    expect(paths.length).toBeGreaterThan(50);
    expect(paths.length).toBeLessThan(Object.keys(workspaceLock.packages).length / 4);
    for (const path of paths) {
      expect(packages[path]!.integrity, path).toBe(workspaceLock.packages[path]!.integrity);
      expect(packages[path]!.version, path).toBe(workspaceLock.packages[path]!.version);
    }
    for (const needed of ['node_modules/vite', 'node_modules/rolldown', 'node_modules/recharts', 'node_modules/react-is'])
      expect(paths, needed).toContain(needed);
    for (const absent of ['node_modules/@nestjs/core', 'node_modules/@prisma/client', 'node_modules/nx', 'node_modules/typescript'])
      expect(paths, absent).not.toContain(absent);
    expect(paths.some((path) => path.startsWith('node_modules/@gw/'))).toBe(false);
  });

  it('resolves every required dependency of every kept package inside the install, as Node would', () => {
    const unresolved: string[] = [];
    for (const [path, entry] of Object.entries(packages)) {
      const meta = (entry as { peerDependenciesMeta?: Record<string, { optional?: boolean }> }).peerDependenciesMeta ?? {};
      const required = [
        ...Object.keys(entry.dependencies ?? {}),
        ...Object.keys(entry.peerDependencies ?? {}).filter((name) => !meta[name]?.optional),
      ];
      for (const name of required) {
        let base = path;
        let found = false;
        for (;;) {
          if (packages[`${base ? `${base}/` : ''}node_modules/${name}`]) found = true;
          if (found || base === '') break;
          const parent = base.lastIndexOf('/node_modules/');
          base = parent < 0 ? '' : base.slice(0, parent);
        }
        if (!found) unresolved.push(`${path || 'root'} -> ${name}`);
      }
    }
    expect(unresolved).toEqual([]);
  });
});
