import { Injectable } from '@nestjs/common';
import type { ChatCompletionView, Principal } from '@gw/contracts';
import { createHash, randomBytes } from 'node:crypto';
import { CatalogService } from '../catalog/catalog.service.js';
import { computeCost } from '../pricing/cost.js';
import { assertMaySpend } from '../billing/spend-guard.js';
import { AdapterRegistry } from '../providers/adapter-registry.js';
import { UpstreamFailure } from '../upstream/upstream-failure.js';
import { buildChatCompletion } from './chat-completion.builder.js';

export function newGenerationId(): string {
  return `gen-${Date.now().toString(36)}-${randomBytes(9).toString('base64url')}`;
}

/** The end-user id as providers see it: hashed per workspace, never raw. */
export function hashEndUser(workspaceId: string, user: unknown): string | undefined {
  if (typeof user !== 'string' || user.length === 0) return undefined;
  return createHash('sha256').update(`${workspaceId}:${user}`).digest('hex').slice(0, 32);
}

/**
 * One chat completion: resolve the model, try its endpoints in catalog order (the next one
 * after a retryable failure) and price the answer. Recording the generation (a JetStream
 * usage event, consumed off the request path) comes with the usage issue: a database write
 * per request, even batched, measurably slowed this path (see the issue note).
 */
@Injectable()
export class ChatService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly adapters: AdapterRegistry,
  ) {}

  async create(principal: Principal, body: Record<string, unknown>): Promise<ChatCompletionView> {
    assertMaySpend(principal);
    const modelId = String(body.model);
    const model = this.catalog.resolve(modelId);
    const endUserHash = hashEndUser(principal.workspaceId, body.user);
    let lastFailure: UpstreamFailure | undefined;
    for (const endpoint of model.endpoints) {
      try {
        const completion = await this.adapters.for(endpoint.provider.format).complete(endpoint, body, { endUserHash });
        const cost = computeCost(endpoint.pricing, completion.usage);
        const id = newGenerationId();
        return buildChatCompletion({ id, modelId, endpoint, completion, cost, isByok: false });
      } catch (error) {
        if (!(error instanceof UpstreamFailure)) throw error;
        lastFailure = error;
        if (!error.retryable) break;
      }
    }
    throw lastFailure!.gatewayError;
  }
}
