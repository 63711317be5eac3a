import { Body, Controller, Get, Headers, Inject, Post, Req, Res } from '@nestjs/common';
import { EmbeddingsCreate, GenerateContentCount, GenerateContentCreate, ModelsList, type ModelView, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { InferenceStreamRelay } from '../chat/inference-stream.relay.js';
import { CancellableInferenceCalls } from '../chat/inference-calls.js';
import { INFERENCE_RESENDS } from '../chat/inference-resends.js';
import { metadataOptIn } from '../chat/service-metadata-header.js';
import { clientHeadersOf, sessionHeaderOf } from '../chat/front-door-payload.js';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { Answers, AnswersOrStreams, Doc, Fails, INFERENCE_FAILS } from '../openapi/api-docs.js';
import { GENERATE_CONTENT_FRAMING } from './generate-content-framing.js';
import { embedRequestOf, geminiEmbeddingsOf, geminiModelOf } from './google-shapes.js';
import { idempotencyOf } from '../idempotency/idempotency-key.js';

interface RawRequest {
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * `{model}:{method}` from the path: the model id may hold a slash (`sim/gpt-4o-mini`), which
 * @google/genai puts in the path as it is (`models/sim/gpt-4o-mini:generateContent`).
 */
const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function modelCall(url: string): { model: string; method: string; query: URLSearchParams } {
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  const match = /^\/v1(?:beta)?\/models\/(.+):([A-Za-z]+)$/.exec(path);
  if (!match)
    throw new GatewayError(404, `Not found: ${path} (expected /v1beta/models/{model}:{method} or /v1/models/{model}:{method})`, {
      errorType: 'not_found',
    });
  return { model: decodeURIComponent(match[1]!), method: match[2]!, query: new URLSearchParams(q >= 0 ? url.slice(q + 1) : '') };
}

/**
 * Google's Gemini API as a front door for every model of the catalog (`@google/genai` with
 * `httpOptions.baseUrl` at the gateway calls `/v1/models/...`, or `/v1beta/...` with that
 * apiVersion): generateContent, streamGenerateContent (SSE, `alt=sse`), embedContent /
 * batchEmbedContents, and the model list (on `/v1beta` only: `GET /v1/models` is OpenAI's).
 * The key may come as `x-goog-api-key` (ApiKeyGuard). Inference translates the Gemini body to
 * the chat pipeline and renders the answer back (the Gemini codec, both ways).
 */
@Controller()
export class GenerateContentController {
  constructor(
    private readonly streams: InferenceStreamRelay,
    private readonly calls: CancellableInferenceCalls,
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  @Post(['v1beta/models/*', 'v1/models/*'])
  @Doc(
    "Gemini API model methods (Google's generateContent, streamGenerateContent?alt=sse, countTokens, embedContent, batchEmbedContents)",
    "The path is `/v1beta/models/{model}:{method}`; errors carry Google's `error.status` beside the envelope. The key may be sent as `x-goog-api-key`.",
  )
  @AnswersOrStreams(
    'GeminiMethodAnswer',
    'with `:streamGenerateContent?alt=sse`, Gemini\'s SSE frames (`data: <GenerateContentResponse>`; `data: {"error": ...}` after the first)',
  )
  @Fails(INFERENCE_FAILS)
  async call(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Req() request: RawRequest,
    @Res() reply: FastifyReply,
    @Headers('x-session-id') sessionHeader?: string,
  ): Promise<void> {
    const { model, method, query } = modelCall(request.url);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw GatewayError.badRequest('The body must be a JSON object');
    const payload = {
      principal,
      body: { ...(body as Record<string, unknown>), model },
      sessionId: sessionHeaderOf(sessionHeader),
      ...metadataOptIn(request.headers),
      client: clientHeadersOf(request.headers),
    };
    switch (method) {
      case 'generateContent':
        return this.calls.forward(reply, GenerateContentCreate, {
          ...payload,
          idempotency: idempotencyOf(request.headers, 'gemini.generateContent', payload.body),
        });
      case 'streamGenerateContent':
        if (query.get('alt') !== 'sse')
          throw GatewayError.badRequest('streamGenerateContent streams Server-Sent Events only: add ?alt=sse');
        return this.streams.relay(
          reply,
          { ...payload, idempotency: idempotencyOf(request.headers, 'gemini.streamGenerateContent', payload.body) },
          GENERATE_CONTENT_FRAMING,
        );
      case 'countTokens': {
        // Google's body is `{contents}` or `{generateContentRequest}`; the count is of that request.
        const request = body as Record<string, unknown>;
        if (request.generateContentRequest !== undefined && Object.keys(request).some((key) => key !== 'generateContentRequest'))
          throw GatewayError.badRequest('countTokens takes contents or generateContentRequest, not both');
        const counted = isRecord(request.generateContentRequest) ? { ...request.generateContentRequest, model } : payload.body;
        return this.calls.forward(reply, GenerateContentCount, { ...payload, body: counted });
      }
      case 'embedContent':
      case 'batchEmbedContents': {
        const embedBody = embedRequestOf(model, method, body as Record<string, unknown>);
        const idempotency = idempotencyOf(request.headers, `gemini.${method}`, payload.body);
        const answer = await this.rpc.send(EmbeddingsCreate, { principal, body: embedBody, idempotency }, this.env.INFERENCE_TIMEOUT_MS, {
          resendUncommitted: INFERENCE_RESENDS,
        });
        void reply.status(200).send(geminiEmbeddingsOf(method, answer));
        return;
      }
      default:
        throw new GatewayError(
          404,
          `Method ${method} is not offered here (generateContent, streamGenerateContent, countTokens, embedContent, batchEmbedContents)`,
          {
            errorType: 'not_found',
          },
        );
    }
  }

  @Get('v1beta/models')
  @Doc("List the models (Google's Gemini API shape)")
  @Answers(200, 'GeminiModelListAnswer', 'Every model of the catalog, as `models/{id}`')
  async list(@CurrentPrincipal() principal: Principal): Promise<{ models: Array<Record<string, unknown>> }> {
    const models = await this.rpc.send(ModelsList, { principal });
    return { models: models.data.map(geminiModelOf) };
  }

  @Get('v1beta/models/*')
  @Doc("Get one model (Google's Gemini API shape)")
  @Answers(200, 'GeminiModelAnswer', 'The model')
  @Fails({ 404: 'No such model' })
  async get(@CurrentPrincipal() principal: Principal, @Req() request: RawRequest): Promise<Record<string, unknown>> {
    const id = decodeURIComponent(request.url.split('?')[0]!.slice('/v1beta/models/'.length));
    const models = await this.rpc.send(ModelsList, { principal });
    const model = models.data.find((candidate: ModelView) => candidate.id === id);
    if (!model) throw new GatewayError(404, `Model ${id} not found`, { errorType: 'not_found' });
    return geminiModelOf(model);
  }
}
