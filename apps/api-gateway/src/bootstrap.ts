import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { GatewayError } from '@gw/errors';
import { ReplicaLifecycle, RpcClient } from '@gw/messaging';
import type { Server } from 'node:http';
import { AppModule } from './app.module.js';
import { AuthCacheService } from './auth/auth-cache.service.js';
import { consoleSettingsOf } from './console/console-settings.js';
import { registerConsole } from './console/register-console.js';
import type { GatewayEnv } from './env.js';
import { compileHostPatterns, registerInternRouteHooks } from './interns/intern-routes.js';
import { clientErrorHandler, frameworkErrors } from './errors/raw-errors.js';
import { registerBatchUploadHook } from './batches/batch-upload.hook.js';
import { edgeServerOptions, registerEdgeGuards } from './edge/edge-server.js';
import { isFileUpload, registerMultipart } from './files/file-upload.hook.js';
import { registerJsonBodyParser, registerQueryCheck } from './input/json-parser.js';
import { registerHttpMetrics } from './metrics/http-metrics.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { OpenApiDocumentHolder } from './openapi/openapi.controller.js';
import { registerRequestIdHeader, requestIdOf } from './request-id.js';
import { registerRequestContext } from './request-context.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const JSON_CONTENT_TYPE = /^application\/json\b/i;

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Builds the HTTP gateway; `main.ts` listens, tests may listen on an ephemeral port. */
export async function createGateway(env: GatewayEnv): Promise<NestFastifyApplication> {
  // Errors raised before a route (bad URLs, what Node's HTTP parser refuses) are the envelope too.
  const adapter = new FastifyAdapter({
    ...edgeServerOptions(env),
    bodyLimit: env.BODY_LIMIT_BYTES,
    frameworkErrors,
    clientErrorHandler,
    requestIdHeader: false,
    genReqId: requestIdOf,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(env), adapter, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  // The document describes the routes Nest registered: built from them on its first request.
  app.get(OpenApiDocumentHolder).describe(() => buildOpenApiDocument(app));
  // Errors Fastify raises itself (body too large, bad JSON) and this hook's 415 reach Nest's
  // error handler, hence AllExceptionsFilter and the same envelope.
  const fastify = app.getHttpAdapter().getInstance();
  registerEdgeGuards(app.getHttpServer() as Server, fastify, env);
  registerRequestIdHeader(fastify);
  registerRequestContext(fastify);
  registerHttpMetrics(fastify);
  registerInternRouteHooks(fastify, compileHostPatterns(env.REGIONAL_HOST_PATTERNS));
  registerBatchUploadHook(fastify);
  await registerMultipart(app, env);
  registerJsonBodyParser(fastify);
  registerQueryCheck(fastify);
  registerConsole(fastify, { settings: consoleSettingsOf(env), rpc: app.get(RpcClient), auth: app.get(AuthCacheService) });
  // Every body this API takes is JSON but POST /v1/files' form: anything else is refused before it is parsed.
  // Callback hooks here and below: they run on every request, and a promise each costs more than their work.
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (!BODY_METHODS.has(request.method) || !hasBody(request.headers) || JSON_CONTENT_TYPE.test(request.headers['content-type'] ?? '')) {
      return done();
    }
    if (isFileUpload(request)) return done();
    done(new GatewayError(415, 'Unsupported Content-Type: send application/json'));
  });
  // While draining, answers close their connection, so clients reconnect through the load
  // balancer to a replica that stays.
  const lifecycle = app.get(ReplicaLifecycle);
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (lifecycle.draining) void reply.header('connection', 'close');
    done(null, payload);
  });
  return app;
}

/**
 * The gateway's graceful stop: readiness 503 at once; keep serving for
 * SHUTDOWN_DELAY_MS while load balancers notice; stop accepting connections and let the
 * requests and streams in flight finish (idle keep-alive connections are closed as they
 * become idle), bounded by what is left of SHUTDOWN_GRACE_MS; then Nest's shutdown hooks
 * (the keys-used flush, the NATS connection drain).
 */
export async function stopGateway(app: NestFastifyApplication, env: GatewayEnv): Promise<void> {
  app.get(ReplicaLifecycle).startDraining();
  if (env.SHUTDOWN_DELAY_MS > 0) await sleep(env.SHUTDOWN_DELAY_MS);
  const server = app.getHttpServer() as Server;
  const closed = new Promise<boolean>((resolve) => server.close(() => resolve(true)));
  const idleCloser = setInterval(() => server.closeIdleConnections(), 100);
  server.closeIdleConnections();
  const inTime = await Promise.race([closed, sleep(Math.max(0, env.SHUTDOWN_GRACE_MS - env.SHUTDOWN_DELAY_MS)).then(() => false)]);
  clearInterval(idleCloser);
  if (!inTime) {
    app.get(Logger).warn('Shutdown grace period over with requests still open; closing their connections');
    server.closeAllConnections();
  }
  await app.close();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
