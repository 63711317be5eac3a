import { Injectable } from '@nestjs/common';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { withoutUnsupported } from '../../routing/parameter-support.js';
import { UpstreamClient } from '../../upstream/upstream-client.js';
import { transportFailure } from '../../upstream/upstream-failure.js';
import { excludesReasoning } from '../anthropic/anthropic.adapter.js';
import type { ChatCallContext, NormalizedCompletion, ProviderAdapter, StreamEvent } from '../provider-adapter.js';
import { googleErrorDetail } from './gemini-errors.js';
import { buildGeminiBody } from './gemini-request.js';
import { normalizeGeminiResponse, type GeminiResponse } from './gemini-response.js';
import { geminiStreamEvents } from './gemini-stream.js';
import { GoogleAccessTokens } from './google-access-tokens.js';

/** Where a model's methods are and how the call is authenticated. */
export interface GoogleTarget {
  /** `{...}/models/{model}`: the method follows as `:generateContent`, ... */
  modelUrl: string;
  /** The model's resource name as the API spells it in bodies (`models/{model}`, or Vertex's full path). */
  modelName: string;
  headers: Record<string, string>;
}

/**
 * Gemini's wire format, spoken by the Gemini API (`x-goog-api-key`) and by Vertex AI (an OAuth
 * access token from a service account, project and location in the path). The two differ only
 * in the target; the codec is the same both ways.
 */
export abstract class GoogleGenerativeAdapter implements ProviderAdapter {
  /** Vertex AI streams a call's arguments in pieces when asked; the Gemini API does not ("not supported in Gemini API"). */
  protected readonly streamsFunctionCallArguments: boolean = false;

  constructor(protected readonly upstream: UpstreamClient) {}

  /** Where the model lives and with which credential (Vertex embeddings reuse it). */
  abstract target(endpoint: RoutableEndpoint, context: ChatCallContext): Promise<GoogleTarget>;

  /** The Gemini API counts a whole request (system, tools) only as `generateContentRequest`. */
  protected countTokensBody(request: Record<string, unknown>, target: GoogleTarget): Record<string, unknown> {
    return { generateContentRequest: { model: target.modelName, ...request } };
  }

  async complete(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<NormalizedCompletion> {
    const { provider } = endpoint;
    const upstreamBody = buildGeminiBody(withoutUnsupported(body, endpoint));
    const target = await this.target(endpoint, context);
    const answer = await this.upstream.postOrFail(
      provider.id,
      `${target.modelUrl}:generateContent`,
      target.headers,
      JSON.stringify(upstreamBody),
      context.signal,
      googleErrorDetail,
    );
    const parsed = answer as GeminiResponse | undefined;
    if (!parsed || typeof parsed !== 'object' || (!Array.isArray(parsed.candidates) && !parsed.promptFeedback))
      throw transportFailure(provider.id, 'protocol', 'sent a malformed response');
    return normalizeGeminiResponse(parsed, {
      excludeReasoning: excludesReasoning(body),
      promptText: () => JSON.stringify(upstreamBody.contents),
    });
  }

  /** The provider's own count of a chat body's prompt (`:countTokens` on the translated request). */
  async countTokens(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<number> {
    const { provider } = endpoint;
    const upstreamBody = buildGeminiBody(withoutUnsupported(body, endpoint));
    const target = await this.target(endpoint, context);
    const answer = await this.upstream.postOrFail(
      provider.id,
      `${target.modelUrl}:countTokens`,
      target.headers,
      JSON.stringify(this.countTokensBody(upstreamBody, target)),
      context.signal,
      googleErrorDetail,
    );
    const total = (answer as { totalTokens?: unknown } | undefined)?.totalTokens;
    if (typeof total !== 'number') throw transportFailure(provider.id, 'protocol', 'sent a malformed token count');
    return total;
  }

  async stream(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<AsyncIterable<StreamEvent>> {
    const { provider } = endpoint;
    const upstreamBody = buildGeminiBody(withoutUnsupported(body, endpoint), {
      streamFunctionCallArguments: this.streamsFunctionCallArguments,
    });
    context.onUpstreamBody?.(upstreamBody);
    const target = await this.target(endpoint, context);
    const text = await this.upstream.postStream(
      provider.id,
      `${target.modelUrl}:streamGenerateContent?alt=sse`,
      target.headers,
      JSON.stringify(upstreamBody),
      context.signal,
      googleErrorDetail,
    );
    return geminiStreamEvents(provider.id, text, { excludeReasoning: excludesReasoning(body) });
  }
}

/** The Gemini API (Generative Language API): `{baseUrl}/models/{model}`, the key in `x-goog-api-key`. */
@Injectable()
export class GeminiAdapter extends GoogleGenerativeAdapter {
  // Declared so Nest sees what to inject (an inherited constructor carries no parameter types).
  constructor(upstream: UpstreamClient) {
    super(upstream);
  }

  target(endpoint: RoutableEndpoint, context: ChatCallContext): Promise<GoogleTarget> {
    return Promise.resolve({
      modelUrl: `${endpoint.provider.baseUrl}/models/${endpoint.upstreamModel}`,
      modelName: `models/${endpoint.upstreamModel}`,
      headers: { 'x-goog-api-key': context.apiKey ?? endpoint.provider.apiKey },
    });
  }
}

/**
 * Vertex AI: `{baseUrl}/projects/{project}/locations/{location}/publishers/google/models/{model}`
 * with a service account's access token (a BYOK credential is a service account JSON too).
 */
@Injectable()
export class VertexAdapter extends GoogleGenerativeAdapter {
  protected override readonly streamsFunctionCallArguments = true;

  constructor(
    upstream: UpstreamClient,
    private readonly tokens: GoogleAccessTokens,
  ) {
    super(upstream);
  }

  /** Vertex AI's countTokens takes the request's contents, system instruction, tools and config at the top. */
  protected override countTokensBody(request: Record<string, unknown>): Record<string, unknown> {
    const { contents, systemInstruction, tools, generationConfig } = request;
    return { contents, systemInstruction, tools, generationConfig };
  }

  async target(endpoint: RoutableEndpoint, context: ChatCallContext): Promise<GoogleTarget> {
    const { provider } = endpoint;
    const vertex = provider.vertex;
    if (!vertex) throw transportFailure(provider.id, 'connect', 'has no Vertex AI project and location configured');
    const byok = context.apiKey !== undefined;
    const credential = this.tokens.credential(context.apiKey ?? provider.apiKey, vertex.tokenUrl, byok);
    // A workspace's own service account bills its own project; the operator's uses the catalog's.
    const project = byok ? credential.projectId || vertex.project : vertex.project || credential.projectId;
    if (!project) throw transportFailure(provider.id, 'connect', 'has no Vertex AI project configured');
    const token = await this.tokens.accessToken(provider.id, credential);
    const modelName = `projects/${project}/locations/${vertex.location}/publishers/google/models/${endpoint.upstreamModel}`;
    return {
      modelUrl: `${provider.baseUrl}/${modelName}`,
      modelName,
      headers: { authorization: `Bearer ${token}` },
    };
  }
}
