import { Injectable } from '@nestjs/common';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import { azureTarget } from '../providers/azure/azure-target.js';
import { EntraAccessTokens } from '../providers/azure/entra-access-tokens.js';
import type { ChatCallContext } from '../providers/provider-adapter.js';
import { ROUTING_FIELDS } from '../routing/provider-preferences.js';
import { openAiErrorDetail, UpstreamClient } from '../upstream/upstream-client.js';
import { transportFailure } from '../upstream/upstream-failure.js';
import { hostAuthHeaders } from '../providers/openai/hosts/host-auth.js';
import { adaptEmbeddingsToHost, floatsToBase64 } from '../providers/openai/hosts/host-embeddings.js';

/** What an OpenAI-compatible `/embeddings` endpoint answers. */
export interface UpstreamEmbeddings {
  data: Array<{ embedding: number[] | string; index?: number }>;
  usage?: { prompt_tokens?: number; total_tokens?: number } | null;
}

/** Embeddings bodies carry no gateway-only field beyond the routing ones. */
const GATEWAY_ONLY_FIELDS = new Set(ROUTING_FIELDS);

/** OpenAI's `POST {baseUrl}/embeddings`, spoken by OpenAI and the many hosts that imitate it. */
@Injectable()
export class OpenAiEmbeddingsClient {
  constructor(
    private readonly upstream: UpstreamClient,
    private readonly tokens: EntraAccessTokens,
  ) {}

  async create(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<UpstreamEmbeddings> {
    const { provider } = endpoint;
    if (provider.format !== 'openai' && provider.format !== 'azure') {
      // Anthropic has no embeddings endpoint; the catalog should not route one there.
      throw transportFailure(provider.id, 'protocol', `has no embeddings endpoint (format ${provider.format})`);
    }
    // Azure OpenAI is the same wire format at its own URL, with its own key header.
    const target =
      provider.format === 'azure'
        ? await azureTarget(endpoint, context, 'embeddings', this.tokens)
        : {
            url: `${provider.baseUrl}/embeddings`,
            headers: hostAuthHeaders(provider, context.apiKey ?? provider.apiKey),
            deployment: endpoint.upstreamModel,
            // A workspace's own server goes through the tenant pool (its SSRF rules), as its chats do.
            tenantEndpoint: endpoint.tenant === true,
          };
    // OpenAI and each named compatible host take their own embeddings body, or the gateway refuses what they cannot do.
    const adapted =
      provider.format === 'openai'
        ? adaptEmbeddingsToHost(upstreamBody(body, target.deployment, context.endUserHash), provider.host ?? 'openai', provider.id)
        : { body: upstreamBody(body, target.deployment, context.endUserHash), encodeBase64: false };
    const answer = await this.upstream.postOrFail(
      provider.id,
      target.url,
      target.headers,
      JSON.stringify(adapted.body),
      context.signal,
      openAiErrorDetail,
      target.tenantEndpoint,
    );
    const parsed = answer as UpstreamEmbeddings | undefined;
    if (!parsed || !Array.isArray(parsed.data)) throw transportFailure(provider.id, 'protocol', 'sent malformed embeddings');
    if (adapted.encodeBase64)
      for (const item of parsed.data) if (Array.isArray(item.embedding)) item.embedding = floatsToBase64(item.embedding);
    return parsed;
  }
}

/** The client's body re-targeted at the upstream model; the end user only as its hash. */
export function upstreamBody(body: Record<string, unknown>, upstreamModel: string, endUserHash?: string): Record<string, unknown> {
  const upstream: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) if (!GATEWAY_ONLY_FIELDS.has(field)) upstream[field] = value;
  upstream.model = upstreamModel;
  if (endUserHash) upstream.user = endUserHash;
  else delete upstream.user;
  return upstream;
}
