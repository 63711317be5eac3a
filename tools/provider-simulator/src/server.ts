import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import { resetPromptCache } from './anthropic-cache.ts';
import { handleCountTokens, handleMessages } from './anthropic.ts';
import { handleCreateMessageBatch, handleMessageBatchRoute } from './batches/anthropic-batches.ts';
import { handleBatchRoute, handleCreateBatch } from './batches/openai-batches.ts';
import { handleFileRoute, handleUploadFile } from './batches/openai-files.ts';
import { handleAzure } from './azure.ts';
import { handleConverse } from './bedrock.ts';
import { awsNow, setAwsClockOffset } from './bedrock-auth.ts';
import { handleInvokeModel } from './bedrock-embeddings.ts';
import { handleEmbeddings } from './embeddings.ts';
import { entraTokensIssued, handleEntra, isEntraRoute } from './entra.ts';
import { APP_SERVICE_TOKEN_PATH, handleManagedIdentity, IMDS_TOKEN_PATH } from './managed-identity.ts';
import { geminiCallOf, handleGemini } from './gemini.ts';
import { handleServiceAccount, handleStsToken, handleToken, handleWorkloadIdentity } from './gemini-auth.ts';
import { anthropicError, openaiError } from './errors.ts';
import { resetFaultCounters } from './faults.ts';
import { MAX_BATCH_BODY_BYTES, readBody, sendJson } from './http.ts';
import { parseJsonObject } from './json.ts';
import { handleHostChat } from './hosts/hosts.ts';
import { handleHostEmbeddings } from './hosts/host-embeddings.ts';
import { handleChatCompletions, handleGetModel, handleListModels } from './openai.ts';
import { handleResponses } from './responses.ts';
import { peekStreamStats } from './stream-stats.ts';

type Flavor = 'openai' | 'anthropic' | 'plain';
type BodyHandler = (req: IncomingMessage, res: ServerResponse, raw: Buffer) => Promise<void>;

const OPENAI_PREFIXES = ['/openai/v1', '/v1'];
const ANTHROPIC_PREFIX = '/anthropic';

function flavorOf(path: string): Flavor {
  if (path.startsWith(`${ANTHROPIC_PREFIX}/`)) return 'anthropic';
  if (OPENAI_PREFIXES.some((p) => path.startsWith(`${p}/`))) return 'openai';
  return 'plain';
}

function sendNotFound(res: ServerResponse, method: string, path: string): void {
  const flavor = flavorOf(path);
  if (flavor === 'anthropic') return sendJson(res, 404, anthropicError('not_found_error', `Not found: ${method} ${path}`));
  if (flavor === 'openai')
    return sendJson(res, 404, openaiError(`Invalid URL (${method} ${path})`, 'invalid_request_error', null, 'unknown_url'));
  sendJson(res, 404, { error: { message: `Not found: ${method} ${path}`, type: 'not_found' } });
}

function sendTooLarge(res: ServerResponse, path: string): void {
  const headers = { connection: 'close' };
  if (flavorOf(path) === 'anthropic') {
    return sendJson(res, 413, anthropicError('request_too_large', 'Request exceeds the maximum allowed number of bytes.'), headers);
  }
  sendJson(
    res,
    413,
    openaiError('Request too large: the body exceeds 10 MiB.', 'invalid_request_error', null, 'request_too_large'),
    headers,
  );
}

/** Strips `/openai/v1` or `/v1`; undefined when the path is not an OpenAI route. */
function openaiRoute(path: string): string | undefined {
  for (const prefix of OPENAI_PREFIXES) if (path.startsWith(`${prefix}/`)) return path.slice(prefix.length);
  return undefined;
}

function bodyHandlerFor(path: string): BodyHandler | undefined {
  const oa = openaiRoute(path);
  if (oa === '/chat/completions') return handleChatCompletions;
  if (oa === '/embeddings') return handleEmbeddings;
  if (oa === '/responses') return handleResponses;
  if (oa === '/files') return handleUploadFile;
  if (oa === '/batches') return handleCreateBatch;
  if (path === '/anthropic/v1/messages') return handleMessages;
  if (path === MESSAGE_BATCHES) return handleCreateMessageBatch;
  if (path === '/anthropic/v1/messages/count_tokens') return handleCountTokens;
  if (path === '/google/oauth2/token') return handleToken;
  if (path === '/google/sts/v1/token') return handleStsToken;
  return undefined;
}

const MESSAGE_BATCHES = '/anthropic/v1/messages/batches';

/** Files and batches: GET / DELETE / POST {id}/cancel under their collection (creates are body handlers). */
function resourceRoute(req: IncomingMessage, res: ServerResponse, method: string, path: string, query: URLSearchParams): boolean {
  const oa = openaiRoute(path);
  const under = (base: string, candidate: string | undefined) =>
    candidate !== undefined && (candidate === base || candidate.startsWith(`${base}/`));
  if (method === 'POST' && (oa === '/files' || oa === '/batches' || path === MESSAGE_BATCHES)) return false;
  if (under('/files', oa)) handleFileRoute(req, res, method, oa!.slice('/files'.length), query);
  else if (under('/batches', oa)) handleBatchRoute(req, res, method, oa!.slice('/batches'.length), query);
  else if (under(MESSAGE_BATCHES, path)) handleMessageBatchRoute(req, res, method, path.slice(MESSAGE_BATCHES.length), query);
  else return false;
  return true;
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  if (resourceRoute(req, res, method, path, new URLSearchParams(q >= 0 ? url.slice(q + 1) : ''))) return;

  if (isEntraRoute(path)) {
    const result = method === 'POST' ? await readBody(req) : undefined;
    if (result && !result.ok) return result.tooLarge ? sendTooLarge(res, path) : undefined;
    if (!result) req.resume();
    return handleEntra(req, res, path, result?.body);
  }

  // Microsoft's library asks IMDS with a trailing slash, as IMDS takes it.
  if (path.replace(/\/$/, '') === IMDS_TOKEN_PATH || path === APP_SERVICE_TOKEN_PATH) {
    req.resume();
    return handleManagedIdentity(req, res, path.replace(/\/$/, ''), new URLSearchParams(q >= 0 ? url.slice(q + 1) : ''));
  }

  if (method === 'GET') {
    if (path === '/health') return sendJson(res, 200, { status: 'ok' });
    if (path === '/sim/google/service-account') return handleServiceAccount(req, res);
    if (path === '/sim/google/workload-identity') return handleWorkloadIdentity(req, res);
    if (path === '/sim/entra/issued') return sendJson(res, 200, { issued: entraTokensIssued() });
    if (path === '/sim/streams')
      return sendJson(res, 200, peekStreamStats(new URLSearchParams(q >= 0 ? url.slice(q + 1) : '').get('key') ?? ''));
    const oa = openaiRoute(path);
    if (oa === '/models') return handleListModels(req, res);
    if (oa?.startsWith('/models/')) return handleGetModel(req, res, oa.slice('/models/'.length));
  } else if (method === 'POST') {
    if (path === '/sim/reset') {
      resetFaultCounters();
      resetPromptCache();
      setAwsClockOffset(0);
      req.resume();
      return sendJson(res, 200, { status: 'ok' });
    }
    if (path === '/sim/aws/clock') {
      const result = await readBody(req);
      if (!result.ok) return result.tooLarge ? sendTooLarge(res, path) : undefined;
      const offsetMs = (parseJsonObject(result.body) ?? {}).offsetMs;
      if (typeof offsetMs !== 'number' || !Number.isFinite(offsetMs)) return sendJson(res, 400, { error: 'offsetMs: a number of ms' });
      setAwsClockOffset(offsetMs);
      return sendJson(res, 200, { offsetMs });
    }
    // Bedrock signs the raw path and Azure reads its query: both take the request as it came.
    if (/^\/bedrock\/model\/[^/]+\/(converse|converse-stream|invoke)$/.test(path) || path.startsWith('/azure/')) {
      // AWS dates its answers by its own clock; a client corrects its skew from this header.
      if (path.startsWith('/bedrock/')) res.setHeader('date', new Date(awsNow()).toUTCString());
      const result = await readBody(req);
      if (!result.ok) return result.tooLarge ? sendTooLarge(res, path) : undefined;
      const query = new URLSearchParams(q >= 0 ? url.slice(q + 1) : '');
      if (path.startsWith('/azure/')) return handleAzure(req, res, result.body, path, query);
      if (path.endsWith('/invoke')) return handleInvokeModel(req, res, result.body, path, query);
      return handleConverse(req, res, result.body, path, query);
    }
    const host = /^\/hosts\/([a-z]+)\/v1\/(chat\/completions|embeddings)$/.exec(path);
    if (host) {
      const result = await readBody(req);
      if (result.ok)
        return host[2] === 'embeddings'
          ? handleHostEmbeddings(req, res, result.body, host[1]!)
          : handleHostChat(req, res, result.body, host[1]!);
      if (result.tooLarge) return sendTooLarge(res, path);
      return;
    }
    const gemini = geminiCallOf(path, new URLSearchParams(q >= 0 ? url.slice(q + 1) : ''));
    if (gemini) {
      const result = await readBody(req);
      if (result.ok) return handleGemini(req, res, result.body, gemini);
      if (result.tooLarge) return sendTooLarge(res, path);
      return;
    }
    const handler = bodyHandlerFor(path);
    if (handler) {
      const batchUpload = handler === handleUploadFile || handler === handleCreateBatch || handler === handleCreateMessageBatch;
      const result = await readBody(req, batchUpload ? MAX_BATCH_BODY_BYTES : undefined);
      if (result.ok) return handler(req, res, result.body);
      if (result.tooLarge) return sendTooLarge(res, path);
      return;
    }
  }
  req.resume();
  sendNotFound(res, method, path);
}

/** The simulator's HTTP server; with `tls`, the same routes over HTTPS (Entra ID's token endpoint needs it). */
export function createSimulatorServer(tls?: { cert: string; key: string }): Server | TlsServer {
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (!res.headersSent)
        sendJson(res, 500, { error: { message: `Simulator error: ${message}`, type: 'server_error', param: null, code: null } });
      else res.destroy();
    });
  };
  const options = { keepAliveTimeout: 65_000, requestTimeout: 0 };
  const server = tls ? createTlsServer({ ...options, ...tls }, handler) : createServer(options, handler);
  server.headersTimeout = 66_000;
  return server;
}
