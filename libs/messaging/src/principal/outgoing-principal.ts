import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { tenancyOf } from '@gw/contracts';
import { currentPrincipal, currentRequestId, REQUEST_ID_HEADER, runWithRequestId, type RequestPrincipal } from '@gw/telemetry';
import type { PrincipalSigner } from './principal-signer.js';
import { PRINCIPAL_HEADER, requestPrincipalOf } from './principal-token.js';

/**
 * A call's headers with the principal it acts for: the gateway (`signer`) signs one for the
 * request; a service passes on the one its own request came with, never signing. A call that
 * acts for no tenant, or made outside a request, is left as it is.
 */
export function withPrincipal(subject: string, data: unknown, headers: MsgHdrs | undefined, signer?: PrincipalSigner): MsgHdrs | undefined {
  if (signer) {
    const tenancy = tenancyOf(subject);
    if (!tenancy || tenancy.actsFor === 'none') return headers;
    let requestId = headers?.get(REQUEST_ID_HEADER);
    const out = headers ?? natsHeaders();
    // A principal is bound to a request: a call made outside one gets an id of its own.
    if (!requestId) {
      requestId = randomUUID();
      out.set(REQUEST_ID_HEADER, requestId);
    }
    const token = signer.sign(tenancy, data, requestId);
    if (token) out.set(PRINCIPAL_HEADER, token);
    return out;
  }
  const token = currentPrincipal()?.token;
  if (!token) return headers;
  const tenancy = tenancyOf(subject);
  if (!tenancy || tenancy.actsFor === 'none') return headers;
  const out = headers ?? natsHeaders();
  out.set(PRINCIPAL_HEADER, token);
  return out;
}

/** Runs `fn` with a stored grant (a batch's) as the principal its calls pass on; none: as it is. */
export function actingWithGrant<T>(grant: string | null | undefined, fn: () => T): T {
  return grant ? runWithRequestId(currentRequestId(), fn, requestPrincipalOf(grant)) : fn();
}

/** The signed principal the request being handled came with (a batch keeps its grant and names itself from it). */
export function receivedPrincipal(): RequestPrincipal | undefined {
  return currentPrincipal();
}
