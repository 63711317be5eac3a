import 'reflect-metadata';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import type { GatewayEnv } from './env.js';
import { sendError } from './errors/all-exceptions.filter.js';

/** Builds the HTTP gateway; `main.ts` listens, tests may listen on an ephemeral port. */
export async function createGateway(env: GatewayEnv): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: env.BODY_LIMIT_BYTES, trustProxy: true });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(env), adapter, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  // Errors raised by Fastify itself (body too large, bad JSON, wrong content type) never
  // reach Nest's filters: render them with the same envelope.
  const logger = new NestLogger('HttpExceptions');
  app.getHttpAdapter().getInstance().setErrorHandler((error, _request, reply) => sendError(reply, error, logger));
  app.enableShutdownHooks();
  return app;
}
