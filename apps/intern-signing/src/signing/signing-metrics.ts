import { GatewayError } from '@gw/errors';
import { counter } from '@gw/metrics';

/**
 * Daemon signatures by outcome (issue 16): `signed`; `rate_limited` (the intern's turns are
 * used up, 429); `refused` (no personal identity, an intern not visible or unknown: 4xx);
 * `error` (anything else, the service's fault). Bounded labels, never the intern or user.
 */
const signatures = counter('intern_signatures_total', 'Daemon signing requests by outcome (signed, rate_limited, refused, error)', [
  'outcome',
]);

const SIGNATURE_OUTCOMES = ['signed', 'rate_limited', 'refused', 'error'] as const;

/** Every outcome at zero from the start, so a rate over it is defined before the first signature. */
export function initSignatureMetrics(): void {
  for (const outcome of SIGNATURE_OUTCOMES) signatures.inc({ outcome }, 0);
}

/** The hot path's child, bound once: an increment without hashing labels (the sign path is measured). */
const signed = signatures.labels({ outcome: 'signed' });

export function recordSignature(): void {
  signed.inc();
}

export function recordSignatureFailure(error: unknown): void {
  const status = error instanceof GatewayError ? error.status : 500;
  signatures.inc({ outcome: status === 429 ? 'rate_limited' : status < 500 ? 'refused' : 'error' });
}
