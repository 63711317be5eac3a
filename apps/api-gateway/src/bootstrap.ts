import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { GatewayError } from '@gw/errors';
import { AppModule } from './app.module.js';
import type { GatewayEnv } from './env.js';
import { compileHostPatterns, registerInternRouteHooks } from './interns/intern-routes.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Builds the HTTP gateway; `main.ts` listens, tests may listen on an ephemeral port. */
export async function createGateway(env: GatewayEnv): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: env.BODY_LIMIT_BYTES });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(env), adapter, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  // Errors Fastify raises itself (body too large, bad JSON) and this hook's 415 reach Nest's
  // error handler, hence AllExceptionsFilter and the same envelope.
  const fastify = app.getHttpAdapter().getInstance();
  registerInternRouteHooks(fastify, compileHostPatterns(env.REGIONAL_HOST_PATTERNS));
  // Every body this API takes is JSON: anything else is refused before it is parsed.
  fastify.addHook('onRequest', async (request) => {
    if (!BODY_METHODS.has(request.method) || !hasBody(request.headers)) return;
    if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
      throw new GatewayError(415, 'Unsupported Content-Type: send application/json');
    }
  });
  app.enableShutdownHooks();
  return app;
}
