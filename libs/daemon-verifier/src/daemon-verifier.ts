import { createHash } from 'node:crypto';
import nacl from 'tweetnacl';
import { INVOKE_HEADERS, invokeMessageV1, invokeMessageV2 } from './invoke-message.js';
import type { PublicKeySource } from './jwks-key-source.js';
import { MemoryNonceStore, type NonceStore } from './nonce-store.js';

export type RejectionReason =
  | 'missing_signature'
  | 'malformed_header'
  | 'stale_timestamp'
  | 'future_timestamp'
  | 'unknown_key'
  | 'bad_signature'
  | 'v2_required'
  | 'replayed_nonce';

export type VerificationResult =
  { ok: true; user: string; timestamp: number; keyId: string; version: 1 | 2 } | { ok: false; reason: RejectionReason };

/** What the daemon received, as it received it. */
export interface ReceivedRequest {
  /** Header names in any case; repeated headers as arrays (Node's IncomingMessage.headers fits). */
  headers: Record<string, string | string[] | undefined>;
  /** Method as on the request line. */
  method: string;
  /** Request target as on the request line (path and query), e.g. `/v1/run?x=1`. */
  path: string;
  /** The exact body bytes (empty for none). */
  body: Uint8Array;
}

export interface DaemonVerifierOptions {
  /** The id of the intern this daemon serves: a signature for any other intern is refused. */
  internId: string;
  keys: PublicKeySource;
  /** Oldest acceptable signature, in seconds (default 300). */
  windowSeconds?: number;
  /** How far in the future a timestamp may be, for clock skew (default 30 s). */
  futureSkewSeconds?: number;
  /** Refuse v1 signatures (no method, path or nonce bound) — default false. */
  requireV2?: boolean;
  nonces?: NonceStore;
  now?: () => number;
}

const SIGNATURE_BASE64 = /^[A-Za-z0-9+/]{86}==$/;
const TIMESTAMP = /^[0-9]{1,12}$/;

/**
 * Checks that a request to a daemon carries a fresh signature of the gateway's for this
 * intern, this body and (v2) this method, path and a nonce never seen before. The user it
 * returns is the verified OAuth subject of the person who asked.
 */
export class DaemonVerifier {
  private readonly windowSeconds: number;
  private readonly futureSkewSeconds: number;
  private readonly nonces: NonceStore;
  private readonly now: () => number;
  private readonly options: DaemonVerifierOptions;

  constructor(options: DaemonVerifierOptions) {
    this.options = options;
    this.windowSeconds = options.windowSeconds ?? 300;
    this.futureSkewSeconds = options.futureSkewSeconds ?? 30;
    this.nonces = options.nonces ?? new MemoryNonceStore();
    this.now = options.now ?? Date.now;
  }

  async verify(request: ReceivedRequest): Promise<VerificationResult> {
    const header = (name: string) => singleHeader(request.headers, name);
    const user = header(INVOKE_HEADERS.user);
    const timestamp = header(INVOKE_HEADERS.timestamp);
    const signatureV1 = header(INVOKE_HEADERS.signature);
    const signatureV2 = header(INVOKE_HEADERS.signatureV2);
    const nonce = header(INVOKE_HEADERS.nonce);
    const keyId = header(INVOKE_HEADERS.keyId);
    if (user === undefined || timestamp === undefined || (signatureV1 === undefined && signatureV2 === undefined)) {
      return reject('missing_signature');
    }
    if (!TIMESTAMP.test(timestamp)) return reject('malformed_header');
    const nowSeconds = Math.floor(this.now() / 1000);
    const signedAt = Number(timestamp);
    if (nowSeconds - signedAt > this.windowSeconds) return reject('stale_timestamp');
    if (signedAt - nowSeconds > this.futureSkewSeconds) return reject('future_timestamp');

    const useV2 = signatureV2 !== undefined && nonce !== undefined;
    if (!useV2 && this.options.requireV2) return reject('v2_required');
    const signature = useV2 ? signatureV2 : signatureV1;
    if (signature === undefined || !SIGNATURE_BASE64.test(signature)) return reject('malformed_header');

    const bodySha256 = createHash('sha256').update(request.body).digest('hex');
    const common = { internId: this.options.internId, timestamp, user, bodySha256 };
    const message = useV2
      ? invokeMessageV2({ ...common, nonce, method: request.method.toUpperCase(), path: request.path })
      : invokeMessageV1(common);

    const candidates = keyId !== undefined ? await this.keyById(keyId) : await this.options.keys.all();
    if (candidates.length === 0) return reject('unknown_key');
    const signatureBytes = new Uint8Array(Buffer.from(signature, 'base64'));
    const signer = candidates.find(({ key }) => nacl.sign.detached.verify(message, signatureBytes, key));
    if (!signer) return reject('bad_signature');

    // Only after the signature holds, so nobody can burn nonces they did not get signed.
    if (useV2 && !(await this.nonces.claim(nonce, (signedAt + this.windowSeconds + 1) * 1000))) return reject('replayed_nonce');
    return { ok: true, user, timestamp: signedAt, keyId: signer.kid, version: useV2 ? 2 : 1 };
  }

  private async keyById(kid: string): Promise<Array<{ kid: string; key: Uint8Array }>> {
    const key = await this.options.keys.get(kid);
    return key ? [{ kid, key }] : [];
  }
}

function reject(reason: RejectionReason): VerificationResult {
  return { ok: false, reason };
}

/** A header sent once; a repeated signature header is as good as none. */
function singleHeader(headers: ReceivedRequest['headers'], name: string): string | undefined {
  let value = headers[name];
  if (value === undefined) {
    const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
    value = key === undefined ? undefined : headers[key];
  }
  return typeof value === 'string' ? value : undefined;
}
