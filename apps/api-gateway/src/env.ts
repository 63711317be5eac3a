import { CommonEnv, WithRedisEnv, WithResponseCacheEnv } from '@gw/config';
import { IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';

/**
 * Environment of the HTTP gateway (every variable: docs/configuration.md). REDIS_URL and
 * REDIS_KEY_PREFIX (WithRedisEnv): the shared rate limiter's Redis; unreachable means no limits (fail open);
 * also the response cache's, whose whole-answer hits the gateway answers itself (WithResponseCacheEnv).
 */
export class GatewayEnv extends WithResponseCacheEnv(WithRedisEnv(CommonEnv)) {
  /**
   * The operators' credentials for the admin API (`/v1/admin/...`): `name:secret` entries,
   * comma-separated, each secret 24 characters or more; the name is recorded as who made a change.
   * Empty: no operator, every key is refused there.
   */
  @Matches(/^$|^\s*[A-Za-z0-9][A-Za-z0-9._-]{0,63}:\S{24,}\s*(,\s*[A-Za-z0-9][A-Za-z0-9._-]{0,63}:\S{24,}\s*)*$/, {
    message: 'OPERATOR_API_KEYS must be name:secret entries, comma-separated, each secret 24 characters or more',
  })
  OPERATOR_API_KEYS: string = '';

  /**
   * The Ed25519 key (base64 of its 32-byte seed) that signs the principal of every request the
   * gateway sends for a workspace; the services hold its public key (BUS_PRINCIPAL_PUBLIC_KEYS).
   * A secret. Required on a bus with credentials (NATS_NKEY_SEED set).
   */
  @ValidateIf((env: GatewayEnv) => Boolean(env.NATS_NKEY_SEED) || Boolean(env.BUS_PRINCIPAL_SIGNING_KEY))
  @Matches(/^[A-Za-z0-9+/]{43}=$/, {
    message: 'BUS_PRINCIPAL_SIGNING_KEY must be a base64 Ed25519 seed (32 bytes); required with NATS_NKEY_SEED',
  })
  BUS_PRINCIPAL_SIGNING_KEY?: string;

  /** How long a signed principal is taken after the gateway sent its request (a resend included), in milliseconds. */
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  BUS_PRINCIPAL_TTL_MS: number = 30_000;

  /** Address the public HTTP API listens on. */
  @IsString()
  HOST: string = '0.0.0.0';

  /** Port of the public HTTP API. */
  @IsInt()
  @Min(0)
  @Max(65_535)
  PORT: number = 8080;

  /** Largest request body accepted, in bytes (413 beyond). */
  @IsInt()
  @Min(1024)
  @Max(100 * 1024 * 1024)
  BODY_LIMIT_BYTES: number = 10 * 1024 * 1024;

  /** Most requests (lines) in one batch (413 beyond). */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  BATCH_MAX_LINES: number = 50_000;

  /** Largest POST /v1/batches body, in bytes, read as a stream (413 beyond). */
  @IsInt()
  @Min(1024)
  @Max(1024 * 1024 * 1024)
  BATCH_MAX_BYTES: number = 100 * 1024 * 1024;

  /** Largest single request of a batch (its `{custom_id, body}` as JSON), in bytes (413 beyond). */
  @IsInt()
  @Min(1024)
  @Max(100 * 1024 * 1024)
  BATCH_MAX_LINE_BYTES: number = 1024 * 1024;

  /** Largest file of POST /v1/files, in bytes, streamed to the batch service (413 beyond; OpenAI's batch input limit, 200 MB). */
  @IsInt()
  @Min(1024)
  @Max(1024 * 1024 * 1024)
  FILES_MAX_BYTES: number = 200 * 1024 * 1024;

  /** Batch API requests per minute per workspace (429 with Retry-After beyond). */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  BATCH_API_RATE_LIMIT_RPM: number = 600;

  /** Headers of a request must arrive within this long, else 408 and the socket closed (at most REQUEST_TIMEOUT_MS). */
  @IsInt()
  @Min(1_000)
  @Max(120_000)
  HEADERS_TIMEOUT_MS: number = 10_000;

  /**
   * A whole request, headers and body, must arrive within this long, else 408 and the socket
   * closed: a slow or unfinished body holds nothing longer. A batch upload of
   * BATCH_MAX_BYTES must fit in it: raise both together.
   */
  @IsInt()
  @Min(1_000)
  @Max(3_600_000)
  REQUEST_TIMEOUT_MS: number = 60_000;

  /** An idle keep-alive connection is closed after this long (above a load balancer's idle timeout). */
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  KEEP_ALIVE_TIMEOUT_MS: number = 72_000;

  /** Open connections this replica accepts; past it a new one gets 503 and is closed (0: no cap). */
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  MAX_CONNECTIONS: number = 16_384;

  /**
   * Open connections one client address may hold; past it a new one gets 429 and is closed (0:
   * no cap). The address is the TCP peer's: behind a proxy, size it for the proxy.
   */
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  MAX_CONNECTIONS_PER_CLIENT: number = 8_192;

  /**
   * Connections of one client address on which no request has presented a valid key yet (slow
   * or idle sockets, unauthenticated floods); past it a new one gets 429 and is closed (0: no cap).
   */
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  MAX_UNAUTHENTICATED_CONNECTIONS_PER_CLIENT: number = 4_096;

  /** Upper bound for one chat completion through inference, in milliseconds. */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  INFERENCE_TIMEOUT_MS: number = 300_000;

  /**
   * Longest silence between two chunks of a streamed chat completion before the gateway ends
   * it with a timeout error (above inference's UPSTREAM_BODY_TIMEOUT_MS, so a provider's
   * stall is reported by inference first).
   */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  STREAM_IDLE_TIMEOUT_MS: number = 150_000;

  /** How many authenticated keys the in-memory cache holds. */
  @IsInt()
  @Min(1)
  AUTH_CACHE_MAX_ENTRIES: number = 10_000;

  /** Upper bound on how long a key stays cached, whatever management allows. */
  @IsInt()
  @Min(0)
  @Max(3600)
  AUTH_CACHE_TTL_SECONDS: number = 60;

  /** How often the keys seen in use are published for last_used_at (events.keys.used). */
  @IsInt()
  @Min(100)
  @Max(300_000)
  KEYS_USED_FLUSH_MS: number = 5_000;

  /**
   * On SIGTERM, how long the gateway keeps serving new requests while its readiness already
   * answers 503, so load balancers take it out before it stops accepting. Counted
   * inside SHUTDOWN_GRACE_MS. 0 locally; a few seconds behind a Kubernetes Service or Ingress.
   */
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_DELAY_MS: number = 0;

  /**
   * Hostnames on which intern routes are refused with 421: comma-separated
   * patterns, `*` matching any run of characters, compared with the Host header without port.
   */
  @IsString()
  @Matches(/^[a-z0-9*.,-]*$/i)
  REGIONAL_HOST_PATTERNS: string = 'eu.*,us.*,ap.*';

  /** Requests per key and minute (fixed window, all replicas together) when the key sets none. */
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  KEY_RATE_LIMIT_RPM: number = 600;

  /** Requests and streams in flight per key (all replicas together) when the key sets none. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  KEY_CONCURRENCY_LIMIT: number = 50;

  /**
   * Lease of an in-flight slot in Redis: renewed every 0.8 x this while the request runs; a
   * replica that dies frees its slots after at most this long.
   */
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  KEY_CONCURRENCY_LEASE_MS: number = 30_000;

  /**
   * Bytes of one stream the gateway holds for a client slower than the provider (received
   * from inference, not yet taken by the socket); past it the stream ends.
   */
  @IsInt()
  @Min(16 * 1024)
  @Max(1024 * 1024 * 1024)
  STREAM_MAX_BUFFERED_BYTES: number = 4 * 1024 * 1024;

  /** Bytes all streams of this gateway process may hold together; past it the stream that needs more ends. */
  @IsInt()
  @Min(64 * 1024)
  @Max(16 * 1024 * 1024 * 1024)
  GATEWAY_MAX_BUFFERED_BYTES: number = 256 * 1024 * 1024;

  /**
   * A stream whose client takes nothing for this long (the socket does not drain) is closed
   * and its provider call cancelled.
   */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  STREAM_STALL_TIMEOUT_MS: number = 30_000;

  /**
   * Flow control per stream: the bytes of one stream the gateway lets inference send
   * ahead of what the client took; inference then stops reading the provider until credit comes.
   * A stalled client so holds at most about this much here. 0 turns it off (the bounds above only).
   */
  @IsInt()
  @Min(0)
  @Max(16 * 1024 * 1024)
  STREAM_FLOW_WINDOW_BYTES: number = 64 * 1024;

  /**
   * A request arriving while the gateway's own NATS connection reconnects (a node restarting)
   * waits this long for it before its 503 `service_unavailable`; 0 answers at once.
   */
  @IsInt()
  @Min(0)
  @Max(10_000)
  NATS_RECONNECT_WAIT_MS: number = 1_500;
  /**
   * The web console under /console: its sign-in is this gateway's own OIDC client
   * (authorization code + PKCE). Without the issuer, client and session secret the console's
   * pages still load and sign-in answers 503.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  CONSOLE_OIDC_ISSUER_URL?: string;

  @IsOptional()
  @IsString()
  CONSOLE_OIDC_CLIENT_ID?: string;

  @IsOptional()
  @IsString()
  CONSOLE_OIDC_CLIENT_SECRET?: string;

  /** The origin people open the console at (`https://llm.example.com`): the redirect URI and the Origin writes must carry. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  CONSOLE_PUBLIC_ORIGIN?: string;

  /** Seals the session cookie and derives each session's key and CSRF token: the same on every replica, 32+ characters. */
  @IsOptional()
  @IsString()
  @MinLength(32)
  CONSOLE_SESSION_SECRET?: string;

  /** A session unused for this long ends. */
  @IsInt()
  @Min(60)
  @Max(86_400)
  CONSOLE_IDLE_TIMEOUT_SECONDS: number = 1_800;

  /** A session ends this long after sign-in, used or not. */
  @IsInt()
  @Min(300)
  @Max(30 * 86_400)
  CONSOLE_ABSOLUTE_TIMEOUT_SECONDS: number = 43_200;

  /** The console's built files (apps/console/dist beside this app's dist by default). */
  @IsOptional()
  @IsString()
  CONSOLE_STATIC_DIR?: string;
}

export const GATEWAY_ENV = Symbol('GATEWAY_ENV');
