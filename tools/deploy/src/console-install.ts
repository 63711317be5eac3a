import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';

/*
 * The console image's build stage installs only what `vite build` of apps/console needs: the
 * packages its sources import (plus vite), at the versions and integrity hashes of the
 * workspace's package-lock.json, with everything they depend on. The result is a small
 * package.json and package-lock.json that `npm ci` accepts: no second lockfile to keep in step.
 * Node built-ins only: it runs in the bare Node base image before anything is installed.
 */

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

interface Lockfile {
  name: string;
  version?: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

interface Manifest {
  name: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export interface ConsoleInstall {
  packageJson: Manifest & { private: true };
  lockfile: Lockfile;
  /** The packages the console's sources import, with vite: the install's top-level dependencies. */
  direct: string[];
}

const APP = 'apps/console';
// Tests run from the workspace with its whole install; only the app and its build config count.
const NOT_THE_APP = /\.(spec|int-spec|e2e-spec)\.tsx?$|\/e2e\//;
const BUILTINS = new Set(builtinModules);

/** `@scope/name/sub/path` -> `@scope/name`; `name/sub` -> `name`; relative or built-in -> undefined. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return BUILTINS.has(name) ? undefined : name;
}

/** Bare packages imported (statically, dynamically or for side effects) by the app's sources and its Vite config. */
export function consoleImports(root: string): string[] {
  const files = readdirSync(join(root, APP, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !NOT_THE_APP.test(file));
  const found = new Set<string>();
  for (const file of [...files, `${APP}/vite.config.ts`]) {
    const source = readFileSync(join(root, file), 'utf8');
    for (const match of source.matchAll(/(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(?\s*['"]([^'"]+)['"]/gm)) {
      const name = packageOf(match[1] ?? match[2]!);
      if (name) found.add(name);
    }
  }
  return [...found].sort();
}

/** Where Node would find `name` from the package installed at `from` ('' is the root). */
function resolveIn(packages: Lockfile['packages'], from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (base === '') return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent < 0 ? '' : base.slice(0, parent);
  }
}

/** The console's own install: its imports' closure cut out of the workspace's lockfile. */
export function consoleInstall(root: string): ConsoleInstall {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as Lockfile;
  const direct = [...new Set([...consoleImports(root), 'vite'])].sort();
  const dependencies: Record<string, string> = {};
  const devDependencies: Record<string, string> = {};
  for (const name of direct) {
    const spec = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
    if (!spec) throw new Error(`${APP} imports ${name}, which the workspace's package.json does not declare`);
    // Where the workspace has it, so the lockfile's dev flags stay true of the smaller tree.
    (manifest.dependencies?.[name] ? dependencies : devDependencies)[name] = spec;
  }

  const kept = new Map<string, LockEntry>();
  const pending: { from: string; name: string; optional: boolean }[] = direct.map((name) => ({ from: '', name, optional: false }));
  while (pending.length > 0) {
    const { from, name, optional } = pending.pop()!;
    const path = resolveIn(lock.packages, from, name);
    if (!path) {
      if (optional) continue;
      throw new Error(`${name} (needed by ${from || 'the console'}) is not in package-lock.json`);
    }
    if (kept.has(path)) continue;
    const entry = lock.packages[path]!;
    if (entry.link) throw new Error(`${APP} would need the workspace package ${name}; the image installs registry packages only`);
    kept.set(path, entry);
    for (const dep of Object.keys(entry.dependencies ?? {})) pending.push({ from: path, name: dep, optional: false });
    // Platform builds (rolldown's, lightningcss's): npm ci installs the one that fits.
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) pending.push({ from: path, name: dep, optional: true });
    // npm installs required peers; optional ones only when something else needs them.
    for (const dep of Object.keys(entry.peerDependencies ?? {}))
      if (!entry.peerDependenciesMeta?.[dep]?.optional) pending.push({ from: path, name: dep, optional: false });
  }

  const name = 'gw-console-build';
  const packageJson = { name, version: '0.0.0', private: true as const, dependencies, devDependencies };
  const rootEntry: LockEntry = { name, version: '0.0.0', dependencies, devDependencies };
  const packages: Lockfile['packages'] = { '': rootEntry };
  for (const path of [...kept.keys()].sort()) packages[path] = kept.get(path)!;
  return { packageJson, lockfile: { name, version: '0.0.0', lockfileVersion: lock.lockfileVersion, requires: true, packages }, direct };
}
