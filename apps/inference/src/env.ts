import { DatabaseServiceEnv } from '@gw/config';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { fileURLToPath } from 'node:url';

/** Environment of the inference service (see the root README for every variable). */
export class InferenceEnv extends DatabaseServiceEnv {
  /** The model catalog (JSON); the default ships with the service. */
  @IsString()
  MODEL_CATALOG_PATH: string = fileURLToPath(new URL('../catalog/models.json', import.meta.url));

  @IsInt()
  @Min(100)
  @Max(60_000)
  UPSTREAM_CONNECT_TIMEOUT_MS: number = 5_000;

  /** Time to the provider's response head; a fallback endpoint is tried after it. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  UPSTREAM_FIRST_BYTE_TIMEOUT_MS: number = 60_000;

  /** Longest silence while a provider's body is arriving. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  UPSTREAM_BODY_TIMEOUT_MS: number = 120_000;

  /** Keep-alive connections per provider origin. */
  @IsInt()
  @Min(1)
  @Max(4096)
  UPSTREAM_CONNECTIONS: number = 256;

  /** Gateway fee on a BYOK generation, as a fraction of its upstream cost (decimal string; 0.05 = 5 %). */
  @Matches(/^(0(\.\d+)?|1(\.0+)?)$/)
  BYOK_FEE_RATE: string = '0';

  /** Reported as service_metadata.region. */
  @IsString()
  SERVICE_REGION: string = 'local';

  /** Sticky sessions remembered per replica (LRU) and how long an idle one is kept. */
  @IsInt()
  @Min(1)
  ROUTING_SESSION_MAX: number = 100_000;

  @IsInt()
  @Min(1)
  ROUTING_SESSION_TTL_SECONDS: number = 1_800;

  /** Usage events waiting for their JetStream ack; past this, new events are dropped (logged, counted). */
  @IsInt()
  @Min(100)
  USAGE_OUTBOX_MAX: number = 100_000;

  /**
   * Longest an answer waits for JetStream to acknowledge its usage event; past it the request
   * fails with a retryable 503 rather than answer unbilled (ADR 0030).
   */
  @IsInt()
  @Min(100)
  @Max(120_000)
  USAGE_ACK_TIMEOUT_MS: number = 10_000;

  /** Usage publishes in flight at once; events queued behind them go out together (ADR 0030). */
  @IsInt()
  @Min(1)
  @Max(64)
  USAGE_PUBLISH_CONCURRENCY: number = 1;
}

export const INFERENCE_ENV = Symbol('INFERENCE_ENV');
