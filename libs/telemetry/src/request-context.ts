import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The signed principal a request arrived with (`Gw-Principal`), with what its ids are minted from,
 * decoded at most once per request, when first asked (`requestPrincipalOf` in @gw/messaging), not per id.
 */
export interface RequestPrincipal {
  /** The token as received, which the service's own calls pass on as they got it: only the gateway signs. */
  readonly token: string;
  /** Its nonce (claim `n`): the stem of the request's generation ids, or of a grant's batch id. */
  readonly nonce?: string;
  /** A batch's grant (claim `g`): many lines share it, so its nonce names no generation. */
  readonly grant: boolean;
}

/** What every log line of a request carries, in whichever process handles it (issue 16). */
export interface RequestContext {
  /** The gateway's request id: the caller's `x-request-id` when usable, else a UUID. */
  readonly requestId?: string;
  /** The signed principal the request arrived with, if any. */
  readonly principal?: RequestPrincipal;
  /** What `nextRequestSequence` hands out next: shared by every context of the same principal. */
  readonly sequence: { next: number };
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The header (HTTP and NATS alike) that carries the request id between processes. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** Longest request id accepted from another process (the gateway allows 128 printable characters). */
const MAX_REQUEST_ID = 128;

/**
 * Runs `fn` with `requestId` as the current request's id: what `currentRequestId()` and every
 * log line read until `fn` and what it started asynchronously end; and with the signed principal
 * it arrived with, if any (`currentPrincipal()`). Neither: `fn` runs as it is.
 */
export function runWithRequestId<T>(requestId: string | undefined | null, fn: () => T, principal?: RequestPrincipal): T {
  const id = requestId && requestId.length <= MAX_REQUEST_ID ? requestId : undefined;
  if (!id && !principal) return fn();
  const current = storage.getStore();
  // Re-entered for the same principal (a grant's calls, a nested handler): one sequence, no slot twice.
  const sequence = principal && current?.principal?.token === principal.token ? current.sequence : { next: 0 };
  return storage.run({ requestId: id, principal, sequence }, fn);
}

/** 0, 1, 2, ... per request (per principal it arrived with); undefined outside a request. */
export function nextRequestSequence(): number | undefined {
  const store = storage.getStore();
  return store ? store.sequence.next++ : undefined;
}

/** The id of the request being handled in this async context, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The signed principal of the request being handled in this async context, if any. */
export function currentPrincipal(): RequestPrincipal | undefined {
  return storage.getStore()?.principal;
}
