import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { describeValidationErrors } from '@gw/messaging';
import { readFileSync } from 'node:fs';
import { CatalogConfig } from './catalog.schema.js';

/** Replaces `${VAR}` and `${VAR:-default}` with values from the environment. */
export function interpolateEnv(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g, (_match, name: string, fallback?: string) => {
    const value = env[name];
    return value !== undefined && value !== '' ? value : (fallback ?? '');
  });
}

/**
 * Reads, interpolates and merges the catalog files in order (the shipped catalog, then a dev or
 * test one), then validates the whole; throws with every problem so start-up fails. A provider or
 * model id in two files is refused, naming both: a later file never silently overrides an earlier one.
 */
export function loadCatalog(paths: readonly string[], env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  if (paths.length === 0) throw new Error('Invalid model catalog: no catalog file given');
  const merged = { providers: [] as unknown[], models: [] as unknown[] };
  const problems: string[] = [];
  const providerFiles = new Map<string, string>();
  const modelFiles = new Map<string, string>();
  for (const path of paths) {
    const raw = readCatalogFile(path, env);
    if (!Array.isArray(raw.providers) || !Array.isArray(raw.models)) {
      problems.push(`${path}: a catalog file holds a providers array and a models array`);
      continue;
    }
    problems.push(...claimIds(raw.providers, providerFiles, path, 'provider'), ...claimIds(raw.models, modelFiles, path, 'model'));
    merged.providers.push(...(raw.providers as unknown[]));
    merged.models.push(...(raw.models as unknown[]));
  }
  if (problems.length > 0) throw new Error(`Invalid model catalog:\n  - ${problems.join('\n  - ')}`);
  return parseCatalog(merged);
}

/** Splits `MODEL_CATALOG_PATHS` (comma-separated, in load order). */
export function catalogPaths(list: string): string[] {
  return list
    .split(',')
    .map((path) => path.trim())
    .filter((path) => path !== '');
}

function readCatalogFile(path: string, env: NodeJS.ProcessEnv): { providers?: unknown; models?: unknown } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`Invalid model catalog: cannot read ${path} (${(error as Error).message})`, { cause: error });
  }
  try {
    return JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' ? interpolateEnv(value, env) : value)) as {
      providers?: unknown;
      models?: unknown;
    };
  } catch (error) {
    throw new Error(`Invalid model catalog: ${path} is not JSON (${(error as Error).message})`, { cause: error });
  }
}

/** Records which file each id comes from; an id already taken by another file is a problem naming both. */
function claimIds(entries: unknown[], owners: Map<string, string>, path: string, kind: string): string[] {
  const problems: string[] = [];
  for (const entry of entries) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') continue;
    const owner = owners.get(id);
    if (owner !== undefined && owner !== path) problems.push(`${kind} ${id} is in both ${owner} and ${path}`);
    else owners.set(id, path);
  }
  return problems;
}

export function parseCatalog(raw: unknown): CatalogConfig {
  const catalog = plainToInstance(CatalogConfig, raw);
  const problems = describeValidationErrors(validateSync(catalog, { forbidUnknownValues: true }), 'catalog');
  const providerIds = new Set<string>();
  for (const provider of catalog.providers ?? []) {
    if (providerIds.has(provider.id)) problems.push(`catalog.providers: duplicate id ${provider.id}`);
    if (provider.responsesApi && provider.format !== 'openai')
      problems.push(`catalog.providers.${provider.id}: responsesApi needs format openai`);
    if (provider.format === 'bedrock' && provider.region === undefined)
      problems.push(`catalog.providers.${provider.id}: a bedrock provider needs a region (empty: not configured)`);
    if ((provider.region !== undefined || provider.guardrail) && provider.format !== 'bedrock')
      problems.push(`catalog.providers.${provider.id}: region and guardrail are for bedrock providers`);
    if (provider.apiVersion !== undefined && provider.format !== 'azure')
      problems.push(`catalog.providers.${provider.id}: apiVersion is for azure providers`);
    if ((provider.format === 'vertex') !== (provider.vertex !== undefined))
      problems.push(`catalog.providers.${provider.id}: vertex (project, location) goes with format vertex, and only with it`);
    if ((provider.host !== undefined || provider.auth !== undefined || provider.headers !== undefined) && provider.format !== 'openai')
      problems.push(`catalog.providers.${provider.id}: host, auth and headers are for openai-format providers`);
    for (const [name, value] of Object.entries(provider.headers ?? {}))
      if (!/^[A-Za-z0-9-]+$/.test(name) || typeof value !== 'string')
        problems.push(`catalog.providers.${provider.id}.headers.${name}: a header name and a string value`);
    providerIds.add(provider.id);
  }
  const modelIds = new Set<string>();
  for (const model of catalog.models ?? []) {
    if (modelIds.has(model.id)) problems.push(`catalog.models: duplicate id ${model.id}`);
    modelIds.add(model.id);
    for (const endpoint of model.endpoints ?? []) {
      if (!providerIds.has(endpoint.provider)) problems.push(`catalog.models.${model.id}: unknown provider ${endpoint.provider}`);
      const format = catalog.providers.find((provider) => provider.id === endpoint.provider)?.format;
      if (endpoint.batch && format !== 'openai' && format !== 'anthropic')
        problems.push(`catalog.models.${model.id}: batch needs an openai or anthropic provider`);
    }
  }
  if (problems.length > 0) throw new Error(`Invalid model catalog:\n  - ${problems.join('\n  - ')}`);
  return catalog;
}
