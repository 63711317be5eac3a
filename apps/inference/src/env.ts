import { DatabaseServiceEnv, IsKeyEncryptionKeys, WithRedisEnv, WithResponseCacheEnv } from '@gw/config';
import { IsIn, IsInt, IsString, IsUrl, Matches, Max, Min, MinLength, ValidateBy, ValidateIf } from 'class-validator';
import { isServiceAccountSource } from './providers/gemini/google-access-tokens.js';
import { fileURLToPath } from 'node:url';

/**
 * Environment of the inference service (every variable: docs/configuration.md). REDIS_URL and
 * REDIS_KEY_PREFIX (WithRedisEnv): the stored outcomes of requests with an `Idempotency-Key`, and the response cache
 * (unreachable: no cache).
 */
export class InferenceEnv extends WithResponseCacheEnv(WithRedisEnv(DatabaseServiceEnv)) {
  /** How long the outcome of a request with an `Idempotency-Key` answers its retries (seconds). */
  @IsInt()
  @Min(60)
  @Max(7 * 24 * 3600)
  IDEMPOTENCY_TTL_SECONDS: number = 24 * 3600;

  /** Largest outcome kept for a retry (the answer, or a stream's bytes); a larger one is billed once and not replayed. */
  @IsInt()
  @Min(1_024)
  @Max(64 * 1024 * 1024)
  IDEMPOTENCY_MAX_BYTES: number = 4 * 1024 * 1024;

  /** How long a retry waits for the first request with its key to finish before a 409. */
  @IsInt()
  @Min(0)
  @Max(120_000)
  IDEMPOTENCY_WAIT_MS: number = 10_000;

  /**
   * The model catalog's JSON files, comma-separated, merged in order (an id in two files is refused).
   * The default is the catalog that ships with the service; dev and test stacks add catalog/dev-models.json.
   */
  @Matches(/[^\s,]/, { message: 'MODEL_CATALOG_PATHS must name at least one catalog file' })
  MODEL_CATALOG_PATHS: string = fileURLToPath(new URL('../catalog/models.json', import.meta.url));

  /**
   * How often a replica asks the database for a newer catalog version than it serves: the
   * catch-up for a `events.catalog.changed` it missed (the event itself arrives at once).
   */
  @IsInt()
  @Min(100)
  @Max(600_000)
  CATALOG_POLL_MS: number = 5_000;

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

  /**
   * A PEM file of certificate authorities trusted beside the system's for calls to providers and
   * their token endpoints (Entra ID): a private PKI, or the local stack's per-run CA for the
   * provider simulator's TLS port. Empty (the default): the system's authorities only.
   */
  @IsString()
  UPSTREAM_EXTRA_CA_FILE: string = '';

  /**
   * The managed identity whose tokens `azure` catalog providers with `managedIdentity: true` use:
   * a user-assigned identity's client id, or empty (the default) for the host's system-assigned one.
   * Microsoft's library finds the token endpoint itself: App Service's from IDENTITY_ENDPOINT and
   * IDENTITY_HEADER, else the instance metadata service (AZURE_POD_IDENTITY_AUTHORITY_HOST overrides its address).
   */
  @Matches(/^([0-9a-fA-F-]{36})?$/)
  AZURE_MANAGED_IDENTITY_CLIENT_ID: string = '';

  /**
   * Whole-call limit on each call to a provider's batch or file API (upload, create, status,
   * results download, cancel, delete), on top of the connect / first-byte / body timeouts.
   */
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  NATIVE_BATCH_CALL_TIMEOUT_MS: number = 60_000;

  /** Keep-alive connections per provider origin. */
  @IsInt()
  @Min(1)
  @Max(4096)
  UPSTREAM_CONNECTIONS: number = 256;

  /** Gateway fee on a BYOK generation, as a fraction of its upstream cost (decimal string; 0.05 = 5 %). */
  @Matches(/^(0(\.\d+)?|1(\.0+)?)$/)
  BYOK_FEE_RATE: string = '0';

  /**
   * How long a spend reservation is held at most: a call that runs longer loses
   * its hold, and a replica that dies holds its calls' worst cases this long.
   */
  @IsInt()
  @Min(60)
  @Max(3_600)
  SPEND_RESERVATION_TTL_SECONDS: number = 900;

  /**
   * Calls' worth of spend a replica leases per key at a time (at most half of what is free), so
   * most calls reserve locally; 1 reserves each call on its own.
   */
  @IsInt()
  @Min(1)
  @Max(1_000)
  SPEND_LEASE_CALLS: number = 32;

  /** Reported as service_metadata.region. */
  @IsString()
  SERVICE_REGION: string = 'local';

  /**
   * Key-encryption keys of stored generation content (`<version>:<base64 of 32 bytes>`, comma-separated,
   * the first current), as BYOK_KEKS are management's. Unset: no workspace can turn content logging on.
   */
  @ValidateIf((env: InferenceEnv) => env.CONTENT_KEKS !== '')
  @IsKeyEncryptionKeys()
  CONTENT_KEKS: string = '';

  /** Largest stored content of one generation (prompt and completion, after redaction); longer texts are cut. */
  @IsInt()
  @Min(1_024)
  @Max(16 * 1024 * 1024)
  GENERATION_CONTENT_MAX_BYTES: number = 256 * 1024;

  /** Longest a stored content is kept; a workspace may ask for less. */
  @IsInt()
  @Min(1)
  @Max(3_650)
  GENERATION_CONTENT_RETENTION_DAYS: number = 30;

  /** Generation rows older than this are dropped a whole day's partition at a time; the hourly rollups stay. */
  @IsInt()
  @Min(1)
  @Max(3_650)
  GENERATION_RETENTION_DAYS: number = 90;

  /** Hourly rollups (activity and analytics) older than this are deleted. */
  @IsInt()
  @Min(1)
  @Max(36_500)
  GENERATION_ROLLUP_RETENTION_DAYS: number = 1_095;

  /** Sticky sessions remembered per replica (LRU) and how long an idle one is kept. */
  @IsInt()
  @Min(1)
  ROUTING_SESSION_MAX: number = 100_000;

  @IsInt()
  @Min(1)
  ROUTING_SESSION_TTL_SECONDS: number = 1_800;

  /** How long an endpoint that failed three times in a row on a replica is tried last, on every replica. */
  @IsInt()
  @Min(1)
  @Max(3_600)
  ENDPOINT_COOLDOWN_SECONDS: number = 30;

  /** Failed calls in a row on a replica that cool an endpoint for every replica; 0: failures never do (retry-after holds stay). */
  @IsInt()
  @Min(0)
  @Max(100)
  ENDPOINT_FAILURES_TO_COOL: number = 3;

  /** How often each replica re-reads the shared endpoint cooldowns from Redis (events bring them at once; this catches a missed one). */
  @IsInt()
  @Min(100)
  @Max(60_000)
  ENDPOINT_COOLDOWN_SYNC_MS: number = 2_000;

  /** Usage events waiting for their JetStream ack; past this, new events are dropped (logged, counted). */
  @IsInt()
  @Min(100)
  USAGE_OUTBOX_MAX: number = 100_000;

  /** Server tools: the search backend behind `service:web_search`. */
  @IsIn(['searxng', 'brave'])
  SEARCH_BACKEND: 'searxng' | 'brave' = 'searxng';

  /** SearXNG's base URL (its `/search?format=json`); the stack points it at tools/search-simulator. */
  @ValidateIf((env: InferenceEnv) => env.SEARCH_BACKEND === 'searxng')
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  SEARXNG_URL: string = 'http://127.0.0.1:8792';

  /** Brave Search API key (`X-Subscription-Token`), required when SEARCH_BACKEND=brave. */
  @ValidateIf((env: InferenceEnv) => env.SEARCH_BACKEND === 'brave')
  @IsString()
  @MinLength(1, { message: 'BRAVE_SEARCH_API_KEY is required when SEARCH_BACKEND=brave' })
  BRAVE_SEARCH_API_KEY: string = '';

  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  BRAVE_SEARCH_URL: string = 'https://api.search.brave.com/res/v1/web/search';

  /** Results per web search. */
  @IsInt()
  @Min(1)
  @Max(20)
  WEB_SEARCH_MAX_RESULTS: number = 5;

  /** Price of one web search in dollars (decimal string), added to the cost of the generation that asked for it. */
  @Matches(/^\d+(\.\d+)?$/)
  WEB_SEARCH_PRICE: string = '0.005';

  /** Price of one web_fetch in dollars (decimal string). */
  @Matches(/^\d+(\.\d+)?$/)
  WEB_FETCH_PRICE: string = '0';

  /**
   * Origins (`scheme://host:port`, comma-separated) web_fetch and the search backend may reach
   * although they resolve to private, loopback or link-local addresses: the local search
   * simulator in tests and `npm run up`. Empty (the default): every such address is refused.
   */
  @Matches(/^(\s*https?:\/\/[^\s,/]+\s*)(,\s*https?:\/\/[^\s,/]+\s*)*$|^$/, {
    message: 'WEB_FETCH_ALLOWED_ORIGINS must be comma-separated http(s)://host:port origins',
  })
  WEB_FETCH_ALLOWED_ORIGINS: string = '';

  /**
   * Origins (`scheme://host:port`, comma-separated) a BYOK credential's own endpoint (an Azure
   * resource) may name although they resolve to private, loopback or link-local addresses: the
   * local provider simulator in tests and `npm run up`. Empty (the default): every such address is refused.
   */
  @Matches(/^(\s*https?:\/\/[^\s,/]+\s*)(,\s*https?:\/\/[^\s,/]+\s*)*$|^$/, {
    message: 'BYOK_ALLOWED_ORIGINS must be comma-separated http(s)://host:port origins',
  })
  BYOK_ALLOWED_ORIGINS: string = '';

  @IsInt()
  @Min(1_024)
  @Max(50 * 1024 * 1024)
  WEB_FETCH_MAX_BYTES: number = 2 * 1024 * 1024;

  @IsInt()
  @Min(100)
  @Max(120_000)
  WEB_FETCH_TIMEOUT_MS: number = 10_000;

  @IsInt()
  @Min(0)
  @Max(10)
  WEB_FETCH_MAX_REDIRECTS: number = 5;

  /** Characters of page text a web_fetch result hands the model. */
  @IsInt()
  @Min(100)
  WEB_FETCH_MAX_CHARS: number = 20_000;

  /**
   * The moderation plugin's model: a catalog chat model answering Llama Guard's
   * `safe` / `unsafe\nS1,...`. Dev and test stacks set the simulator's `sim/llama-guard`.
   */
  @IsString()
  @MinLength(1)
  MODERATION_MODEL: string = 'meta-llama/llama-guard-4';

  /** The moderation plugin also checks non-streamed answers (input is always checked). */
  @IsIn(['true', 'false'])
  MODERATION_CHECK_OUTPUT: 'true' | 'false' = 'false';

  /**
   * The alignment plugin's judge: a catalog chat model answering
   * `{"rules":[{"broken","probability"}]}`. Dev and test stacks set the simulator's `sim/alignment-judge`.
   */
  @IsString()
  @MinLength(1)
  ALIGNMENT_JUDGE_MODEL: string = 'openai/gpt-5.4-mini';

  /**
   * Longest an answer waits for JetStream to acknowledge its usage event; past it the request
   * fails with a retryable 503 rather than answer unbilled.
   */
  @IsInt()
  @Min(100)
  @Max(120_000)
  USAGE_ACK_TIMEOUT_MS: number = 10_000;

  /** Usage publishes in flight at once; events queued behind them go out together. */
  @IsInt()
  @Min(1)
  @Max(64)
  USAGE_PUBLISH_CONCURRENCY: number = 1;

  /** Enables the Gemini API's models (`google-gemini` in the catalog, which reads it too). */
  @IsString()
  GEMINI_API_KEY: string = '';

  /**
   * Enables Vertex AI's models: the service account's JSON file (its path), or the JSON itself (a Secret's value);
   * or an `external_account` configuration (workload identity federation on GKE, EKS, AKS).
   */
  @ValidateIf((env: InferenceEnv) => env.GOOGLE_APPLICATION_CREDENTIALS !== '')
  @ValidateBy({
    name: 'isServiceAccount',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isServiceAccountSource(value),
      defaultMessage: () => 'GOOGLE_APPLICATION_CREDENTIALS must be a service account JSON, or the path of a readable one',
    },
  })
  GOOGLE_APPLICATION_CREDENTIALS: string = '';

  /** Vertex AI's project (empty: the service account's own) and location (`global`, or a region such as `europe-west4`). */
  @IsString()
  VERTEX_PROJECT: string = '';

  @Matches(/^[a-z0-9-]+$/)
  VERTEX_LOCATION: string = 'global';

  /** The time-to-live of an entry whose request named none. */
  @IsInt()
  @Min(1)
  @Max(30 * 24 * 3600)
  RESPONSE_CACHE_DEFAULT_TTL_SECONDS: number = 300;

  /** Largest entry stored (compressed bytes); larger answers are not stored. */
  @IsInt()
  @Min(1024)
  @Max(64 * 1024 * 1024)
  RESPONSE_CACHE_MAX_ENTRY_BYTES: number = 1024 * 1024;

  /** Most bytes (compressed) one workspace's entries hold; the entries nearest to expiry make room. */
  @IsInt()
  @Min(1024)
  @Max(16 * 1024 * 1024 * 1024)
  RESPONSE_CACHE_MAX_WORKSPACE_BYTES: number = 64 * 1024 * 1024;

  /** How long identical requests wait for the one in flight before going upstream themselves. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  RESPONSE_CACHE_COALESCE_WAIT_MS: number = 120_000;
}

export const INFERENCE_ENV = Symbol('INFERENCE_ENV');
