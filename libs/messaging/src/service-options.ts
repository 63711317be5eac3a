import { QUEUE_GROUPS, type ServiceName } from '@gw/contracts';
import { jetStreamPlacementFromEnv, type JetStreamPlacementEnv } from './jetstream-placement.js';
import { natsAuthFromEnv, type NatsAuthEnv } from './nats-connection.js';
import { PrincipalVerifier } from './principal/principal-verifier.js';
import type { ServiceBootstrapOptions } from './service-bootstrap.js';

/** The settings a service's replica is started with (`DatabaseServiceEnv` of @gw/config has them all). */
interface ServiceEnv extends NatsAuthEnv, JetStreamPlacementEnv {
  NATS_URL: string;
  BUS_PRINCIPAL_PUBLIC_KEYS?: string;
  RPC_HEARTBEAT_MS: number;
  SHUTDOWN_GRACE_MS: number;
  HEALTH_PORT: number;
  METRICS_PORT: number;
  METRICS_HOST: string;
}

/** A service's main process: its queue group and bus user, the rest from its settings; stopped by SIGTERM. */
export function serviceOptionsFromEnv(env: ServiceEnv, service: ServiceName): ServiceBootstrapOptions {
  const queue = QUEUE_GROUPS[service];
  return {
    queue,
    natsUrl: env.NATS_URL,
    natsAuth: natsAuthFromEnv(env, queue),
    jetstream: jetStreamPlacementFromEnv(env),
    principals: PrincipalVerifier.fromEnv(env),
    heartbeatMs: env.RPC_HEARTBEAT_MS,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    healthPort: env.HEALTH_PORT,
    metricsPort: env.METRICS_PORT,
    metricsHost: env.METRICS_HOST,
    handleSignals: true,
  };
}
