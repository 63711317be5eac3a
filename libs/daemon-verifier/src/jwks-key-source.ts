/** One Ed25519 public key as published at `GET /v1/daemon/jwks.json` (RFC 8037). */
export interface OkpJwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  use?: string;
}

/** Where the verifier finds public keys by key id. */
export interface PublicKeySource {
  /** The key with that id, or undefined when none is known (after a refresh, if one is due). */
  get(kid: string): Promise<Uint8Array | undefined>;
  /** Every key currently known (used when a request names no key id). */
  all(): Promise<Array<{ kid: string; key: Uint8Array }>>;
}

export interface JwksKeySourceOptions {
  /** e.g. `https://gateway.example.com/v1/daemon/jwks.json`. */
  url: string;
  /** Bound on one fetch of the JWKS (default 5 s). */
  timeoutMs?: number;
  /** Keys are re-fetched at least this often, so a removed key stops verifying (default 1 h). */
  maxAgeMs?: number;
  /**
   * An unknown key id triggers a refresh at most this often (default 30 s): a rotation is
   * picked up at once, and a flood of made-up key ids costs one fetch per interval.
   */
  minRefreshIntervalMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

/** Decodes the JWKS document; keys that are not Ed25519 signing keys are skipped. */
export function parseJwks(document: unknown): Map<string, Uint8Array> {
  const keys = new Map<string, Uint8Array>();
  const list = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list)) throw new Error('JWKS document has no "keys" array');
  for (const entry of list as Array<Partial<OkpJwk>>) {
    if (entry?.kty !== 'OKP' || entry.crv !== 'Ed25519' || typeof entry.x !== 'string' || typeof entry.kid !== 'string') continue;
    if (entry.use !== undefined && entry.use !== 'sig') continue;
    const key = Buffer.from(entry.x, 'base64url');
    if (key.length === 32) keys.set(entry.kid, new Uint8Array(key));
  }
  return keys;
}

/** The gateway's published keys, cached and refreshed when a request names a key id not seen yet. */
export class JwksKeySource implements PublicKeySource {
  private keys = new Map<string, Uint8Array>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;
  private readonly timeoutMs: number;
  private readonly maxAgeMs: number;
  private readonly minRefreshIntervalMs: number;
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;
  private readonly options: JwksKeySourceOptions;

  constructor(options: JwksKeySourceOptions) {
    this.options = options;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.maxAgeMs = options.maxAgeMs ?? 3_600_000;
    this.minRefreshIntervalMs = options.minRefreshIntervalMs ?? 30_000;
    this.fetchFn = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
  }

  async get(kid: string): Promise<Uint8Array | undefined> {
    const age = this.now() - this.fetchedAt;
    if (age >= this.maxAgeMs || (!this.keys.has(kid) && age >= this.minRefreshIntervalMs)) await this.refresh();
    return this.keys.get(kid);
  }

  async all(): Promise<Array<{ kid: string; key: Uint8Array }>> {
    if (this.now() - this.fetchedAt >= this.maxAgeMs) await this.refresh();
    return [...this.keys].map(([kid, key]) => ({ kid, key }));
  }

  /** One fetch at a time; a failed fetch keeps the keys already known. */
  refresh(): Promise<void> {
    this.inFlight ??= this.load().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async load(): Promise<void> {
    try {
      const response = await this.fetchFn(this.options.url, { signal: AbortSignal.timeout(this.timeoutMs) });
      if (!response.ok) throw new Error(`JWKS answered ${response.status}`);
      this.keys = parseJwks(await response.json());
    } catch {
      // Keep the last good keys; the next refresh is due after minRefreshIntervalMs.
    } finally {
      this.fetchedAt = this.now();
    }
  }
}

/** Fixed keys, for daemons configured with the public keys directly and for tests. */
export class StaticKeySource implements PublicKeySource {
  private readonly keys: Map<string, Uint8Array>;

  constructor(keys: Record<string, Uint8Array> | Map<string, Uint8Array>) {
    this.keys = keys instanceof Map ? keys : new Map(Object.entries(keys));
  }

  async get(kid: string): Promise<Uint8Array | undefined> {
    return this.keys.get(kid);
  }

  async all(): Promise<Array<{ kid: string; key: Uint8Array }>> {
    return [...this.keys].map(([kid, key]) => ({ kid, key }));
  }
}
