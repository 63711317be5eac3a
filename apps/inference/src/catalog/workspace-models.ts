import { validateDto, WorkspaceModelDto, type ResolvedWorkspaceModel } from '@gw/contracts';
import { Prisma } from '../generated/prisma/client.js';
import { WORKSPACE_ENDPOINT_PREFIX } from '../routing/endpoint-health.js';
import type { ProviderConfig } from './catalog.schema.js';
import type { RoutableEndpoint, RoutableModel } from './catalog-snapshot.js';

/** What a self-hosted OpenAI-compatible server commonly takes, when the workspace lists nothing. */
const DEFAULT_PARAMETERS = ['temperature', 'top_p', 'max_tokens', 'max_completion_tokens', 'stop', 'seed', 'tools', 'tool_choice'];

/**
 * A workspace's own models as routing takes them, from management's reply (validated again here:
 * a model this code cannot read is left out and named in `skipped`, never half-routed). Each
 * endpoint is a provider `workspace` of its format at the workspace's URL, called through the
 * tenant pool, with only the credentials it is bound to; its health key is unique to the workspace.
 */
export async function workspaceModelsOf(
  workspaceId: string,
  resolved: readonly ResolvedWorkspaceModel[],
): Promise<{ models: ReadonlyMap<string, RoutableModel>; skipped: string[] }> {
  const models = new Map<string, RoutableModel>();
  const skipped: string[] = [];
  for (const entry of resolved) {
    try {
      const model = await validateDto(WorkspaceModelDto, entry.model, 'reject');
      models.set(entry.id, routable(workspaceId, entry.id, model));
    } catch {
      skipped.push(entry.id);
    }
  }
  return { models, skipped };
}

function routable(workspaceId: string, id: string, model: WorkspaceModelDto): RoutableModel {
  const supported = model.supportedParameters ?? DEFAULT_PARAMETERS;
  const endpoints = model.endpoints.map((endpoint, index): RoutableEndpoint => {
    const provider: ProviderConfig = {
      id: 'workspace',
      name: 'Workspace',
      format: endpoint.format,
      baseUrl: endpoint.baseUrl.replace(/\/+$/, ''),
      apiKey: '',
      auth: { kind: 'bearer' },
      ...(endpoint.apiVersion ? { apiVersion: endpoint.apiVersion } : {}),
    };
    const prompt = new Prisma.Decimal(endpoint.pricing?.prompt ?? '0');
    return {
      provider,
      upstreamModel: endpoint.upstreamModel,
      pricing: { prompt, completion: new Prisma.Decimal(endpoint.pricing?.completion ?? '0'), cachedPrompt: prompt },
      supportedParameters: new Set(supported),
      key: `${WORKSPACE_ENDPOINT_PREFIX}${workspaceId}/${id}#${index}`,
      tenant: true,
      boundCredentials: endpoint.credentials.map((credential) => ({
        credentialId: credential.byokId.toLowerCase(),
        ...(credential.weight !== undefined ? { weight: credential.weight } : {}),
      })),
      ...(endpoint.priority !== undefined ? { priority: endpoint.priority } : {}),
      ...(endpoint.weight !== undefined ? { weight: endpoint.weight } : {}),
    };
  });
  return {
    config: {
      id,
      name: model.name,
      contextLength: model.contextLength,
      ...(model.maxCompletionTokens ? { maxCompletionTokens: model.maxCompletionTokens } : {}),
      supportedParameters: supported,
      ...(model.outputModalities ? { outputModalities: model.outputModalities } : {}),
      endpoints: [],
    },
    endpoints,
  };
}
