import 'reflect-metadata';
import { Logger as NestLogger, type DynamicModule, type INestMicroservice, type Type } from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { closeMetricsServer, initServiceMetrics, startMetricsServer } from '@gw/metrics';
import { initTracing, shutdownTracing } from '@gw/telemetry';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { Logger } from 'nestjs-pino';
import type { Server } from 'node:http';
import { closeHealthServer, startHealthServer } from './lifecycle/health-server.js';
import { ReplicaLifecycle } from './lifecycle/replica-lifecycle.js';
import { shutdownOnSignals } from './lifecycle/shutdown-on-signals.js';
import type { JetStreamPlacement } from './jetstream-placement.js';
import type { NatsAuth } from './nats-connection.js';
import { BusServer } from './bus-server.js';
import { DEFAULT_HEARTBEAT_MS } from './rpc-liveness.js';
import type { PrincipalVerifier } from './principal/principal-verifier.js';

export interface ServiceBootstrapOptions {
  /** Queue group: every replica of one service joins the same group and shares its load. */
  queue: string;
  natsUrl: string;
  /** The service's credentials on the bus; none: anonymous. */
  natsAuth?: NatsAuth;
  /** Heartbeat on the reply subject of each request in progress; default 2 s. */
  heartbeatMs?: number;
  /** How long a shutdown waits for the requests and streams in flight; default 25 s. */
  shutdownGraceMs?: number;
  /** Port of the HTTP probes (`/health`, `/health/ready`); 0 or unset: none. */
  healthPort?: number;
  healthHost?: string;
  /** Port of `GET /metrics` (Prometheus, libs/metrics); 0 or unset: none. */
  metricsPort?: number;
  /** Address of `GET /metrics` (METRICS_HOST); default loopback: it has no auth. */
  metricsHost?: string;
  /** Main processes: SIGTERM/SIGINT start the graceful shutdown and exit. Tests close the app themselves. */
  handleSignals?: boolean;
  /** Largest reply sent inline; larger go through the object store. Default: max_payload minus 16 KB. */
  inlineMaxBytes?: number;
  /** Replicas and tags of the JetStream stores the server side creates (`jetStreamPlacementFromEnv`); default one copy. */
  jetstream?: JetStreamPlacement;
  /** Refuses a request acting for a tenant without the principal the gateway signed for it (`PrincipalVerifier.fromEnv`). */
  principals?: PrincipalVerifier;
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 25_000;

/** A running service replica: close it the graceful way with `stop()`. */
export interface ServiceReplica {
  app: INestMicroservice;
  lifecycle: ReplicaLifecycle;
  server: BusServer;
  /** Readiness 503, drain NATS, finish what is in flight (bounded), close everything. */
  stop(): Promise<void>;
}

/** Starts a NestJS microservice on the bus (`BusServer`) with the system's common wiring. */
export async function bootstrapService(
  module: Type<unknown> | DynamicModule,
  options: ServiceBootstrapOptions,
): Promise<INestMicroservice> {
  return (await startServiceReplica(module, options)).app;
}

/**
 * The same as `bootstrapService`, with the handles a graceful stop needs. Stopping runs in this
 * order: readiness turns 503; the queue-group subscriptions drain (NATS sends new
 * requests to the other replicas, those already delivered are handled); the requests and
 * streams in flight finish, up to the grace period, after which their callers get a retryable
 * 503; the server connection flushes and closes; then Nest's shutdown hooks close consumers,
 * client connections and the database.
 */
export async function startServiceReplica(
  module: Type<unknown> | DynamicModule,
  options: ServiceBootstrapOptions,
): Promise<ServiceReplica> {
  const graceMs = options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  const strategy = new BusServer({
    servers: options.natsUrl,
    queue: options.queue,
    auth: options.natsAuth,
    gracePeriodMs: graceMs,
    heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    inlineMaxBytes: options.inlineMaxBytes,
    jetstream: options.jetstream,
    principals: options.principals,
  });
  initServiceMetrics(options.queue);
  // Off unless OTEL_TRACES_EXPORTER names an exporter; service.name defaults to the queue group.
  await initTracing(options.queue);
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, { strategy, bufferLogs: true });
  app.useLogger(app.get(Logger));
  strategy.serveControllersOf(app.get(ModulesContainer, { strict: false }));
  await app.listen();
  // Ready means subscribed: a request sent right after this returns must not meet "no responders".
  await strategy.flush();
  const lifecycle = new ReplicaLifecycle();
  let health: Server | undefined;
  if (options.healthPort) {
    health = await startHealthServer(options.healthPort, options.healthHost ?? '0.0.0.0', lifecycle, () => strategy.isConnected());
  }
  const metrics = options.metricsPort ? await startMetricsServer(options.metricsPort, options.metricsHost ?? '127.0.0.1') : undefined;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      lifecycle.startDraining();
      await app.close();
      if (health) await closeHealthServer(health);
      if (metrics) await closeMetricsServer(metrics);
      await shutdownTracing();
    })();
    return stopping;
  };
  if (options.handleSignals) shutdownOnSignals({ graceMs, shutdown: stop });
  new NestLogger('Bootstrap').log(`${options.queue} listening on NATS queue group "${options.queue}"`);
  return { app, lifecycle, server: strategy, stop };
}
