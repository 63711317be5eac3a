import { Inject, Injectable } from '@nestjs/common';
import {
  NATIVE_BATCH_CUSTOM_ID,
  type NativeBatchCancelReply,
  type NativeBatchDeleteReply,
  type NativeBatchHandle,
  type NativeBatchHandleRequest,
  type NativeBatchLineResult,
  type NativeBatchLineUsage,
  type NativeBatchStatusReply,
  type NativeBatchSubmitReply,
  type NativeBatchSubmitRequest,
  type Principal,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { createHash } from 'node:crypto';
import { assertMaySpend } from '@gw/usage';
import { CatalogService, type RoutableEndpoint } from '../catalog/catalog.service.js';
import { assertEmbeddingsModel } from '../catalog/model-kind.js';
import { hashEndUser } from '../shared-pipeline/chat-preparation.service.js';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import { chargeFor, type Charge } from '../pricing/charge.js';
import { computeCost } from '../pricing/cost.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import { ByokCredentialsService } from '../resolution/byok-credentials.service.js';
import { ProviderRouter } from '../routing/provider-router.service.js';
import { endpointKeyOf, type RouteAttempt } from '../routing/route-types.js';
import { UpstreamClient } from '../upstream/upstream-client.js';
import { httpFailure, UpstreamFailure } from '../upstream/upstream-failure.js';
import { AnthropicBatchApi } from './anthropic-batch-api.js';
import { codecFor, type LineOptions } from './line-codecs.js';
import { parseHandle } from './native-batch-handle.js';
import { OpenAiBatchApi } from './openai-batch-api.js';
import { serverToolName } from '../server-tools/server-tool-request.js';
import type { BatchTarget, ProviderBatchApi, UpstreamLineRow } from './provider-batch-api.js';

/** `gen-batch-<32 hex>`: the same for a line on every poll, so the batch service can count it once. */
export function nativeGenerationId(batchId: string, customId: string): string {
  return `gen-batch-${createHash('sha256').update(`${batchId}\u0000${customId}`).digest('hex').slice(0, 32)}`;
}

/**
 * Why a batch cannot run at a provider's batch API as it is, whatever the endpoint: a
 * `custom_id` providers refuse, or a line that needs the gateway at run time (a preset, a
 * `models` fallback list, plugins, the gateway's server tools).
 */
function gatewayOnlyReason(lines: NativeBatchSubmitRequest['lines']): string | undefined {
  for (const [index, line] of lines.entries()) {
    if (!NATIVE_BATCH_CUSTOM_ID.test(line.custom_id))
      return `requests[${index}].custom_id is not one a provider batch API accepts (1-64 of A-Z a-z 0-9 _ -)`;
    const { body } = line;
    for (const field of ['preset', 'models', 'plugins'] as const) {
      if (body[field] !== undefined && body[field] !== null)
        return `requests[${index}] uses ${field}, which the gateway applies at run time`;
    }
    const tools = Array.isArray(body.tools) ? (body.tools as Array<{ type?: unknown }>) : [];
    if (tools.some((tool) => serverToolName(tool?.type) !== undefined)) return `requests[${index}] uses a server tool the gateway runs`;
  }
  return undefined;
}

const ZERO_USAGE: NormalizedUsage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, reasoningTokens: 0, estimated: false };

/**
 * `inference.batches.native.*`: a batch run at its provider's batch API. Submit
 * picks the first endpoint of the route (provider preferences and BYOK keys as for a live
 * request) that has a batch API for the batch's endpoint, translates every line as the live
 * path would, and submits it; status, cancel and delete act on the provider's batch the handle
 * names, with the same key. Usage and cost are computed at the batch price and returned, never
 * charged or published here: the batch service charges the batch once (contract doc).
 */
@Injectable()
export class NativeBatchesService {
  /** The formats with a batch API of their own (the catalog refuses `batch` on any other). */
  private readonly apis: Record<NativeBatchHandle['api'], ProviderBatchApi>;
  private readonly byokFeeRate: Prisma.Decimal;

  constructor(
    private readonly catalog: CatalogService,
    private readonly router: ProviderRouter,
    private readonly byok: ByokCredentialsService,
    upstream: UpstreamClient,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    this.apis = {
      openai: new OpenAiBatchApi(upstream, env.NATIVE_BATCH_CALL_TIMEOUT_MS),
      anthropic: new AnthropicBatchApi(upstream, env.NATIVE_BATCH_CALL_TIMEOUT_MS),
    };
    this.byokFeeRate = new Prisma.Decimal(env.BYOK_FEE_RATE);
  }

  async submit(request: NativeBatchSubmitRequest): Promise<NativeBatchSubmitReply> {
    const { principal, endpoint, model } = request;
    assertMaySpend(principal);
    const refusal = gatewayOnlyReason(request.lines);
    if (refusal) return { native: false, reason: refusal };
    const embeddings = endpoint === '/v1/embeddings';
    // A workspace's own model routes as its live requests do; its servers have no batch API, so
    // such a batch is answered `native: false` below and runs line by line through the gateway.
    const { credentials, models: workspaceModels } = await this.byok.routingOf(principal.workspaceId);
    if (embeddings) assertEmbeddingsModel(model, workspaceModels.get(model) ?? this.catalog.resolve(model));
    const plan = this.router.plan({
      principal,
      body: { model, ...(request.provider ? { provider: request.provider } : {}) },
      credentials,
      purpose: embeddings ? 'embeddings' : 'chat',
      workspaceModels,
    });
    const candidates = plan.attempts.filter(
      (attempt) => attempt.endpoint.batchPricing !== undefined && codecFor(endpoint, attempt.endpoint.provider.format) !== undefined,
    );
    if (candidates.length === 0)
      return { native: false, reason: `no endpoint of ${model} the batch may use has a provider batch API for ${endpoint}` };

    let failure: UpstreamFailure | undefined;
    let failedProvider: string | undefined;
    for (const attempt of candidates) {
      const encoded = this.encode(request, attempt);
      if ('reason' in encoded) return { native: false, reason: encoded.reason };
      try {
        const codec = codecFor(endpoint, attempt.endpoint.provider.format)!;
        // A codec exists only for the formats that have a batch API.
        const api = attempt.endpoint.provider.format as NativeBatchHandle['api'];
        const submitted = await this.apis[api].submit(targetOf(attempt), encoded.lines, {
          batchId: request.batchId,
          path: codec.path,
        });
        const handle: NativeBatchHandle = {
          v: 1,
          api,
          provider: attempt.endpoint.provider.id,
          endpointId: attempt.endpointKey,
          model: attempt.modelId,
          upstreamModel: attempt.endpoint.upstreamModel,
          endpoint,
          batchId: request.batchId,
          workspaceId: principal.workspaceId,
          upstreamBatchId: submitted.upstreamBatchId,
          ...(submitted.inputFileId ? { inputFileId: submitted.inputFileId } : {}),
          isByok: attempt.credential.kind === 'byok',
          ...(attempt.credential.kind === 'byok' ? { byokCredentialId: attempt.credential.credentialId } : {}),
          submittedAt: Math.floor(Date.now() / 1000),
          ...(Object.keys(encoded.options).length > 0 ? { lineOptions: encoded.options } : {}),
        };
        return { native: true, handle };
      } catch (error) {
        if (!(error instanceof UpstreamFailure)) throw error;
        failure = error;
        failedProvider = attempt.endpoint.provider.id;
        // As live routing does (route-executor.ts): on after a retryable failure, or a BYOK key the
        // provider refused; a refusal of the batch itself (other 4xx) would be the same anywhere.
        const refusedByokKey = attempt.credential.kind === 'byok' && (error.upstreamStatus === 401 || error.upstreamStatus === 403);
        if (!error.retryable && !refusedByokKey) break;
      }
    }
    throw batchApiError(failedProvider!, 'submit', failure!);
  }

  async status(request: NativeBatchHandleRequest): Promise<NativeBatchStatusReply> {
    const { handle, endpoint, target, isByok } = await this.resolve(request);
    const upstream = await this.upstreamCall(handle, 'read', () => this.apis[handle.api].status(target, handle));
    const reply: NativeBatchStatusReply = { state: upstream.state, counts: upstream.counts };
    if (upstream.error) reply.error = upstream.error;
    if (upstream.rows) reply.results = upstream.rows.map((row) => this.lineResult(row, handle, endpoint, isByok));
    return reply;
  }

  async cancel(request: NativeBatchHandleRequest): Promise<NativeBatchCancelReply> {
    const { handle, target } = await this.resolve(request);
    return { state: await this.upstreamCall(handle, 'cancel', () => this.apis[handle.api].cancel(target, handle)) };
  }

  async delete(request: NativeBatchHandleRequest): Promise<NativeBatchDeleteReply> {
    const { handle, target } = await this.resolve(request);
    const status = await this.upstreamCall(handle, 'delete', () => this.apis[handle.api].delete(target, handle));
    return { status, provider: handle.provider };
  }

  /** Every line in the provider's form for this attempt; a line the translation refuses sends the batch to the gateway. */
  private encode(
    request: NativeBatchSubmitRequest,
    attempt: RouteAttempt,
  ): { lines: Array<{ custom_id: string; body: Record<string, unknown> }>; options: Record<string, LineOptions> } | { reason: string } {
    const codec = codecFor(request.endpoint, attempt.endpoint.provider.format)!;
    const lines: Array<{ custom_id: string; body: Record<string, unknown> }> = [];
    const options: Record<string, LineOptions> = {};
    for (const [index, line] of request.lines.entries()) {
      try {
        const encoded = codec.encode(
          { ...line.body, model: request.model },
          { attempt, endUserHash: hashEndUser(request.principal.workspaceId, line.body.user) },
        );
        lines.push({ custom_id: line.custom_id, body: encoded.body });
        if (encoded.options) options[line.custom_id] = encoded.options;
      } catch (error) {
        if (error instanceof GatewayError && error.status === 400)
          return { reason: `requests[${index}] cannot go to ${attempt.endpoint.provider.name}'s batch API: ${error.message}` };
        throw error;
      }
    }
    return { lines, options };
  }

  /** The handle, checked against the principal, with its catalog endpoint and the key it was submitted with. */
  private async resolve(
    request: NativeBatchHandleRequest,
  ): Promise<{ handle: NativeBatchHandle; endpoint: RoutableEndpoint; target: BatchTarget; isByok: boolean }> {
    const handle = parseHandle(request.handle);
    const principal: Principal = request.principal;
    if (handle.workspaceId !== principal.workspaceId) throw GatewayError.notFound('No such native batch for this workspace');
    const endpoint = this.catalog.resolve(handle.model).endpoints.find((candidate) => endpointKeyOf(candidate) === handle.endpointId);
    if (!endpoint)
      throw unavailable(handle.provider, `The endpoint ${handle.endpointId} this batch was submitted to is no longer in the catalog`);
    if (!handle.isByok) {
      if (endpoint.provider.apiKey === '')
        throw unavailable(handle.provider, `The gateway has no key for ${endpoint.provider.name} any more`);
      return { handle, endpoint, target: { provider: endpoint.provider, apiKey: endpoint.provider.apiKey }, isByok: false };
    }
    const credential = (await this.byok.forWorkspace(principal.workspaceId)).find((candidate) => candidate.id === handle.byokCredentialId);
    if (!credential) throw unavailable(handle.provider, 'The BYOK credential this batch was submitted with was deleted or disabled');
    return { handle, endpoint, target: { provider: endpoint.provider, apiKey: credential.apiKey }, isByok: true };
  }

  private async upstreamCall<T>(handle: NativeBatchHandle, operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof UpstreamFailure) throw batchApiError(handle.provider, operation, error);
      throw error;
    }
  }

  private lineResult(row: UpstreamLineRow, handle: NativeBatchHandle, endpoint: RoutableEndpoint, isByok: boolean): NativeBatchLineResult {
    const generationId = nativeGenerationId(handle.batchId, row.custom_id);
    const base = {
      custom_id: row.custom_id,
      request_id: row.requestId,
      generation_id: generationId,
      provider: handle.provider,
      upstream_model: handle.upstreamModel,
    };
    const price = (usage: NormalizedUsage) =>
      chargeFor(computeCost(endpoint.batchPricing ?? endpoint.pricing, usage), isByok, this.byokFeeRate);
    const failed = (statusCode: number | null, error: NativeBatchLineResult['error']): NativeBatchLineResult => ({
      ...base,
      ok: false,
      status_code: statusCode,
      body: null,
      error,
      usage: lineUsage(ZERO_USAGE, price(ZERO_USAGE)),
    });
    if (row.kind === 'not_run')
      return failed(null, {
        type: row.error?.code ?? 'batch_expired',
        message: row.error?.message ?? 'The request did not run',
        param: null,
      });
    if (row.kind === 'error') {
      // The line's error as the live path reports it: the gateway's status and canonical type.
      const mapped = httpFailure(handle.provider, row.statusCode ?? 500, row.error?.message, row.error?.code).gatewayError;
      return failed(mapped.status, { type: mapped.errorType, message: mapped.message, param: null, error_type: mapped.errorType });
    }
    const codec = codecFor(handle.endpoint, handle.api)!;
    try {
      const decoded = codec.decode(row.body, {
        generationId,
        modelId: handle.model,
        endpoint,
        options: handle.lineOptions?.[row.custom_id] ?? {},
        price,
      });
      return {
        ...base,
        ok: true,
        status_code: row.statusCode ?? 200,
        body: decoded.body,
        error: null,
        usage: lineUsage(decoded.usage, decoded.charge),
      };
    } catch (error) {
      const gatewayError =
        error instanceof GatewayError ? error : unavailable(handle.provider, `Provider ${handle.provider} sent a malformed batch result`);
      return failed(gatewayError.status, {
        type: gatewayError.errorType,
        message: gatewayError.message,
        param: null,
        error_type: gatewayError.errorType,
      });
    }
  }
}

function targetOf(attempt: RouteAttempt): BatchTarget {
  const { provider } = attempt.endpoint;
  return { provider, apiKey: attempt.credential.kind === 'byok' ? attempt.credential.apiKey : provider.apiKey };
}

function lineUsage(usage: NormalizedUsage, charge: Charge): NativeBatchLineUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    cached_tokens: usage.cachedTokens,
    cache_write_tokens: usage.cacheWriteTokens ?? 0,
    reasoning_tokens: usage.reasoningTokens,
    cost: charge.charged.toFixed(),
    upstream_cost: charge.upstream.total.toFixed(),
    upstream_prompt_cost: charge.upstream.input.toFixed(),
    upstream_completion_cost: charge.upstream.output.toFixed(),
    is_byok: charge.isByok,
  };
}

function unavailable(provider: string, message: string): GatewayError {
  return new GatewayError(502, message, { errorType: 'provider_unavailable', metadata: { provider } });
}

/** Spec §4.1: an upstream provider operation that failed (batch or file calls, cleanup included) is a 502. */
function batchApiError(provider: string, operation: string, failure: UpstreamFailure): GatewayError {
  return new GatewayError(502, `${provider}'s batch API failed (${operation}): ${failure.gatewayError.message}`, {
    errorType: 'provider_unavailable',
    metadata: { provider, operation, ...(failure.upstreamStatus !== undefined ? { upstream_status: failure.upstreamStatus } : {}) },
  });
}
