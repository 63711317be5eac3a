import 'reflect-metadata';
import { Logger as NestLogger, type DynamicModule, type INestMicroservice, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { Logger } from 'nestjs-pino';
import { PlainSubjectNatsServer } from './nats-server.strategy.js';
import { connectedWhile, startHealthServer } from './health-server.js';
import { PayloadValidationPipe } from './payload-validation.pipe.js';
import { AllRpcExceptionsFilter } from './rpc-exception.filter.js';

export interface ServiceBootstrapOptions {
  /** Queue group: every replica of one service joins the same group and shares its load. */
  queue: string;
  natsUrl: string;
  /** Port of the HTTP probe endpoints (`/health/live`, `/health/ready`); off when 0 or unset. */
  healthPort?: number;
}

/** Starts a NestJS microservice on the NATS transport with the system's common wiring. */
export async function bootstrapService(module: Type<unknown> | DynamicModule, options: ServiceBootstrapOptions): Promise<INestMicroservice> {
  const strategy = new PlainSubjectNatsServer({
    servers: options.natsUrl.split(','),
    queue: options.queue,
    name: options.queue,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    gracefulShutdown: true,
    gracePeriod: 2_000,
  });
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, { strategy, bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.useGlobalPipes(new PayloadValidationPipe());
  app.useGlobalFilters(new AllRpcExceptionsFilter());
  app.enableShutdownHooks();
  await app.listen();
  if (options.healthPort) {
    await startHealthServer(options.healthPort, connectedWhile(strategy.status));
    new NestLogger('Bootstrap').log(`probe endpoints on :${options.healthPort}/health/live and /health/ready`);
  }
  new NestLogger('Bootstrap').log(`${options.queue} listening on NATS queue group "${options.queue}"`);
  return app;
}
