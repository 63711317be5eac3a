import { existsSync } from 'node:fs';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, registerDecorator, ValidateIf } from 'class-validator';

/** A path to a file that exists (TLS certificates and keys): checked at start, not at the first reconnect. */
function IsExistingFile(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isExistingFile',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && value.length > 0 && existsSync(value),
        defaultMessage: () => `${String(propertyName)} must name an existing file`,
      },
    });
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Variables every process of the system reads. */
export class CommonEnv {
  /** Comma-separated NATS server URLs. */
  @IsString()
  @Matches(/^(nats|tls):\/\/[^,\s]+(,(nats|tls):\/\/[^,\s]+)*$/)
  NATS_URL = 'nats://127.0.0.1:4222';

  /**
   * This process's nkey seed on the bus (`SU…`, 58 characters): nats-server knows
   * the public key and the permissions of this service's user. Unset: anonymous, which only a
   * server without authorization accepts (never the stack's, the tests' or the chart's).
   */
  @ValidateIf((env: CommonEnv) => env.NATS_NKEY_SEED !== undefined && env.NATS_NKEY_SEED !== '')
  @Matches(/^SU[A-Z2-7]{56}$/, { message: 'NATS_NKEY_SEED must be a user nkey seed (SU followed by 56 base32 characters)' })
  NATS_NKEY_SEED?: string;

  /** CA bundle (PEM) that signed the NATS server's certificate, for `tls://` servers or a private CA. */
  @ValidateIf((env: CommonEnv) => Boolean(env.NATS_TLS_CA_FILE))
  @IsExistingFile()
  NATS_TLS_CA_FILE?: string;

  /** Client certificate and key (PEM) when the NATS server verifies clients (mutual TLS). */
  @ValidateIf((env: CommonEnv) => Boolean(env.NATS_TLS_CERT_FILE))
  @IsExistingFile()
  NATS_TLS_CERT_FILE?: string;

  @ValidateIf((env: CommonEnv) => Boolean(env.NATS_TLS_KEY_FILE))
  @IsExistingFile()
  NATS_TLS_KEY_FILE?: string;

  /**
   * Copies of every JetStream stream, consumer and object store this process creates: 1 on a
   * single nats-server, 3 on a cluster (one node down then stops nothing). Existing streams with
   * fewer are raised on start; a cluster smaller than this refuses the stream and says so.
   */
  @IsInt()
  @Min(1)
  @Max(5)
  JETSTREAM_REPLICAS: number = 1;

  /** Comma-separated server tags a stream's placement requires (multi-zone clusters); unset: anywhere. */
  @ValidateIf((env: CommonEnv) => Boolean(env.JETSTREAM_PLACEMENT_TAGS))
  @Matches(/^[^,\s]+(,[^,\s]+)*$/, { message: 'JETSTREAM_PLACEMENT_TAGS must be comma-separated tags without spaces' })
  JETSTREAM_PLACEMENT_TAGS?: string;

  /** pino level: `fatal`, `error`, `warn`, `info`, `debug` (a line per NATS message and usage event), `trace`, `silent`. */
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** Upper bound for one internal request-reply call, in milliseconds. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  RPC_TIMEOUT_MS: number = 15_000;

  /**
   * A caller that hears nothing (no answer, no heartbeat) from the replica working on its
   * request for this long takes the replica for dead. Several heartbeats long.
   */
  @IsInt()
  @Min(500)
  @Max(600_000)
  RPC_LIVENESS_TIMEOUT_MS: number = 8_000;

  /** How often a service tells the caller of each request in progress that it is alive. */
  @IsInt()
  @Min(50)
  @Max(60_000)
  RPC_HEARTBEAT_MS: number = 2_000;

  /**
   * On SIGTERM: how long the requests and streams in flight may take to finish before the
   * process answers the rest with a retryable 503 and exits. Keep it under the
   * orchestrator's kill timeout (Kubernetes: terminationGracePeriodSeconds, 30 s by default).
   */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  SHUTDOWN_GRACE_MS: number = 25_000;

  /** Port of `GET /metrics` (Prometheus text format, issue 16); 0: none. */
  @IsInt()
  @Min(0)
  @Max(65_535)
  METRICS_PORT: number = 0;

  /**
   * Address `GET /metrics` listens on: loopback unless told otherwise, since it has no auth
   * (issue 35). The Helm chart sets 0.0.0.0 and admits only Prometheus by NetworkPolicy.
   */
  @IsString()
  @MinLength(1)
  METRICS_HOST: string = '127.0.0.1';
}

/** Variables of a service that owns a database. */
export class DatabaseServiceEnv extends CommonEnv {
  /**
   * The gateway's public key(s) for principals on the bus (base64 of 32 bytes, comma-separated
   * while the gateway's key rotates): a request acting for a workspace is refused unless the
   * gateway signed its principal. Required on a bus with credentials (NATS_NKEY_SEED set).
   */
  @ValidateIf((env: DatabaseServiceEnv) => Boolean(env.NATS_NKEY_SEED) || Boolean(env.BUS_PRINCIPAL_PUBLIC_KEYS))
  @Matches(/^\s*[A-Za-z0-9+/]{43}=\s*(,\s*[A-Za-z0-9+/]{43}=\s*)*$/, {
    message: 'BUS_PRINCIPAL_PUBLIC_KEYS must be base64 Ed25519 public keys (32 bytes), comma-separated; required with NATS_NKEY_SEED',
  })
  BUS_PRINCIPAL_PUBLIC_KEYS?: string;

  /** The service's own PostgreSQL database (`postgresql://…`). */
  @IsString()
  @Matches(/^postgres(ql)?:\/\//)
  DATABASE_URL!: string;

  /** PostgreSQL connections per replica. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_POOL_SIZE: number = 10;

  /**
   * Longest wait for a new database connection (the pool's `connectionTimeoutMillis`). Without it
   * a request waits out the operating system's TCP timeout while the server is unreachable; with
   * it the request fails fast, as a retryable 503 (`database_unavailable`).
   */
  @IsInt()
  @Min(100)
  @Max(60_000)
  DATABASE_CONNECT_TIMEOUT_MS: number = 5_000;

  /** Port of the HTTP probes `/health` and `/health/ready`; 0: none (the local stack). */
  @IsInt()
  @Min(0)
  @Max(65_535)
  HEALTH_PORT: number = 0;

  /**
   * Deliveries after which a JetStream consumer gives up on an event it cannot store and moves
   * it to the DEAD_LETTERS stream; the consumer's max_deliver is 3x this.
   */
  @IsInt()
  @Min(1)
  @Max(100)
  CONSUMER_MAX_DELIVERIES: number = 5;
}
