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

/** Reads, interpolates and validates the catalog; throws with every problem so start-up fails. */
export function loadCatalog(path: string, env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  const raw = JSON.parse(readFileSync(path, 'utf8'), (_key, value: unknown) =>
    typeof value === 'string' ? interpolateEnv(value, env) : value,
  ) as unknown;
  return parseCatalog(raw);
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
