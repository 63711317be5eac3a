import { copyFileSync, lstatSync, mkdirSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { nodeFileTrace } from '@vercel/nft';
import { WORKSPACE_ROOT } from './helm.ts';

/**
 * What each image runs, and the files it needs beyond what its entry point imports.
 * `entries` are traced with @vercel/nft (the file tracer Next.js and Vercel deploy with):
 * every file reachable through import/require, package.json files included, so an image
 * holds exactly the production dependencies its service loads (management needs no
 * undici, the gateway no Prisma) instead of the workspace's whole dependency list.
 */
export interface ImageTarget {
  /** Entry points to trace; a directory stands for every .js file in it (CLIs). */
  entries: string[];
  /** Extra files or directories, copied as they are (data read at run time, TS tools). */
  include: string[];
}

const service = (name: string, options: { entries?: string[]; include?: string[] } = {}): ImageTarget => ({
  entries: [`apps/${name}/dist/main.js`, ...(options.entries ?? [])],
  include: options.include ?? [],
});

export const IMAGE_TARGETS: Record<string, ImageTarget> = {
  'api-gateway': service('api-gateway'),
  // The CLIs (create-key, rewrap-byok-keys) run from the same image.
  management: service('management', { entries: ['apps/management/dist/cli'] }),
  inference: service('inference', { include: ['apps/inference/catalog/models.json'] }),
  batch: service('batch'),
  'intern-signing': service('intern-signing'),
  // The migration runner is erasable TypeScript run by Node itself; its one
  // dependency is pg. It carries every service's SQL migrations.
  migrate: { entries: ['node_modules/pg/esm/index.mjs'], include: ['tools/db/package.json', 'tools/db/src', 'prisma'] },
  // Node built-ins only.
  'provider-simulator': { entries: [], include: ['tools/provider-simulator/package.json', 'tools/provider-simulator/src'] },
  'search-simulator': { entries: [], include: ['tools/search-simulator/package.json', 'tools/search-simulator/src'] },
};

// One parse cache for every image: the services share most of their dependency tree.
const traceCache = {};

const SKIPPED = /\.(spec|int-spec|e2e-spec)\.ts$|(^|\/)spec-helpers\.ts$|\.map$|\.d\.ts$|\.tsbuildinfo$/;

/** Copies the files one image needs into `outDir`, keeping the workspace layout and symlinks. */
export async function prune(name: string, outDir: string): Promise<number> {
  const target = IMAGE_TARGETS[name];
  if (!target) throw new Error(`unknown image ${name}; known: ${Object.keys(IMAGE_TARGETS).join(', ')}`);
  const files = new Set<string>();
  if (target.entries.length > 0) {
    const entries = target.entries.flatMap((entry) => {
      const files = walk(entry);
      return files.length === 1 && files[0] === entry ? files : files.filter((file) => file.endsWith('.js'));
    });
    const { fileList, warnings } = await nodeFileTrace(
      entries.map((entry) => join(WORKSPACE_ROOT, entry)),
      { base: WORKSPACE_ROOT, cache: traceCache },
    );
    for (const file of fileList) files.add(file);
    // Optional peers Nest probes for (kafkajs, mqtt, ...) are expected to be missing.
    for (const warning of warnings)
      if (!/Failed to resolve dependency|Cannot find module/.test(String(warning))) console.warn(`${name}: ${String(warning)}`);
  }
  for (const path of target.include) for (const file of walk(path)) files.add(file);
  rmSync(outDir, { recursive: true, force: true });
  let copied = 0;
  for (const file of files) {
    if (SKIPPED.test(file)) continue;
    const from = join(WORKSPACE_ROOT, file);
    const to = join(outDir, file);
    const stat = lstatSync(from, { throwIfNoEntry: false });
    if (!stat) continue;
    mkdirSync(dirname(to), { recursive: true });
    // node_modules/@gw/* stay relative links to ../../libs/*, as npm made them.
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else copyFileSync(from, to);
    copied += 1;
  }
  return copied;
}

function walk(path: string): string[] {
  const absolute = join(WORKSPACE_ROOT, path);
  if (!lstatSync(absolute).isDirectory()) return [path];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(WORKSPACE_ROOT, join(entry.parentPath, entry.name)));
}
