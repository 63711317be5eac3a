import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { describeValidationErrors } from '@gw/contracts';
import { readFileSync } from 'node:fs';
import { CatalogConfig } from './catalog.schema.js';

/** Replaces `${VAR}` and `${VAR:-default}` with values from the environment. */
export function interpolateEnv(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g, (_match, name: string, fallback?: string) => {
    const value = env[name];
    return value !== undefined && value !== '' ? value : (fallback ?? '');
  });
}

/** The catalog as written: providers and models, `${VAR}` references not yet replaced. */
export interface CatalogDocument {
  providers: unknown[];
  models: unknown[];
}

/**
 * Reads, interpolates and merges the catalog files in order (the shipped catalog, then a dev or
 * test one), then validates the whole; throws with every problem so start-up fails. A provider or
 * model id in two files is refused, naming both: a later file never silently overrides an earlier one.
 */
export function loadCatalog(paths: readonly string[], env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  return parseCatalogDocument(readCatalogDocument(paths), env);
}

/** The catalog files merged in order, as written (references kept): what seeds the stored catalog. */
export function readCatalogDocument(paths: readonly string[]): CatalogDocument {
  if (paths.length === 0) throw new Error('Invalid model catalog: no catalog file given');
  const merged: CatalogDocument = { providers: [], models: [] };
  const problems: string[] = [];
  const providerFiles = new Map<string, string>();
  const modelFiles = new Map<string, string>();
  for (const path of paths) {
    const raw = readCatalogFile(path);
    if (!Array.isArray(raw.providers) || !Array.isArray(raw.models)) {
      problems.push(`${path}: a catalog file holds a providers array and a models array`);
      continue;
    }
    problems.push(...claimIds(raw.providers, providerFiles, path, 'provider'), ...claimIds(raw.models, modelFiles, path, 'model'));
    merged.providers.push(...(raw.providers as unknown[]));
    merged.models.push(...(raw.models as unknown[]));
  }
  if (problems.length > 0) throw new Error(`Invalid model catalog:\n  - ${problems.join('\n  - ')}`);
  return merged;
}

/** Replaces every `${VAR}` of the document's strings from `env`, then validates it as one catalog. */
export function parseCatalogDocument(document: unknown, env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  return parseCatalog(interpolateValues(document, env));
}

/** The one spelling of a document that is stored and exported: two-space JSON and a newline. */
export function canonicalCatalogText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

function interpolateValues(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') return interpolateEnv(value, env);
  if (Array.isArray(value)) return value.map((item) => interpolateValues(item, env));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateValues(item, env)]));
  return value;
}

/** Splits `MODEL_CATALOG_PATHS` (comma-separated, in load order). */
export function catalogPaths(list: string): string[] {
  return list
    .split(',')
    .map((path) => path.trim())
    .filter((path) => path !== '');
}

function readCatalogFile(path: string): { providers?: unknown; models?: unknown } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`Invalid model catalog: cannot read ${path} (${(error as Error).message})`, { cause: error });
  }
  try {
    return JSON.parse(text) as { providers?: unknown; models?: unknown };
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
  const problems = describeValidationErrors(validateSync(catalog, { forbidUnknownValues: true }), 'catalog').map((problem) =>
    byId(problem, catalog),
  );
  const providerIds = new Set<string>();
  for (const provider of catalog.providers ?? []) {
    if (providerIds.has(provider.id)) problems.push(`catalog.providers: duplicate id ${provider.id}`);
    if (provider.responsesApi && provider.format !== 'openai' && provider.format !== 'azure')
      problems.push(`catalog.providers.${provider.id}: responsesApi needs format openai or azure`);
    if (provider.format === 'bedrock' && provider.region === undefined)
      problems.push(`catalog.providers.${provider.id}: a bedrock provider needs a region (empty: not configured)`);
    if ((provider.region !== undefined || provider.guardrail) && provider.format !== 'bedrock')
      problems.push(`catalog.providers.${provider.id}: region and guardrail are for bedrock providers`);
    if ((provider.apiVersion !== undefined || provider.entra !== undefined) && provider.format !== 'azure')
      problems.push(`catalog.providers.${provider.id}: apiVersion and entra are for azure providers`);
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
  const names = new Map<string, string>();
  for (const model of catalog.models ?? []) {
    if (modelIds.has(model.id)) problems.push(`catalog.models: duplicate id ${model.id}`);
    modelIds.add(model.id);
    for (const name of [model.id, ...(model.aliases ?? [])]) {
      const owner = names.get(name);
      if (owner !== undefined && owner !== model.id) problems.push(`catalog.models.${model.id}.aliases: ${name} already names ${owner}`);
      names.set(name, model.id);
    }
    for (const endpoint of model.endpoints ?? []) {
      if (!providerIds.has(endpoint.provider)) problems.push(`catalog.models.${model.id}: unknown provider ${endpoint.provider}`);
      const format = catalog.providers.find((provider) => provider.id === endpoint.provider)?.format;
      if (endpoint.batch && format !== 'openai' && format !== 'anthropic')
        problems.push(`catalog.models.${model.id}: batch needs an openai or anthropic provider`);
    }
  }
  for (const model of catalog.models ?? []) {
    const replacement = model.deprecation?.replacement;
    if (replacement !== undefined && (!modelIds.has(replacement) || replacement === model.id))
      problems.push(`catalog.models.${model.id}.deprecation.replacement: ${replacement} is not another model of the catalog`);
  }
  if (problems.length > 0) throw new InvalidCatalogError(problems);
  return catalog;
}

/** Every problem of a catalog, each starting with the path of its field (`catalog.models.<id>.endpoints.0.pricing.prompt: ...`). */
export class InvalidCatalogError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid model catalog:\n  - ${problems.join('\n  - ')}`);
  }
}

/** `catalog.models.3.name` -> `catalog.models.<that model's id>.name`: the path an operator can find. */
function byId(problem: string, catalog: CatalogConfig): string {
  return problem.replace(/^catalog\.(providers|models)\.(\d+)(?=[.:])/, (whole, kind: 'providers' | 'models', index: string) => {
    const id = (catalog[kind] as Array<{ id?: unknown }> | undefined)?.[Number(index)]?.id;
    return typeof id === 'string' && id !== '' ? `catalog.${kind}.${id}` : whole;
  });
}
