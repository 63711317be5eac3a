import type { BatchStatusName } from '@gw/contracts';

/**
 * The batch state machine. Every status change is one compare-and-set UPDATE
 * (`WHERE status = ANY(from)`), so two replicas racing on the same batch cannot both move it.
 */
export const BATCH_TRANSITIONS: Readonly<Record<BatchStatusName, readonly BatchStatusName[]>> = {
  validating: ['in_progress', 'failed', 'cancelling'],
  in_progress: ['finalizing', 'expired', 'cancelling', 'failed'],
  finalizing: ['completed'],
  cancelling: ['cancelled', 'expired'],
  completed: [],
  failed: [],
  expired: [],
  cancelled: [],
};

export const isTerminal = (status: BatchStatusName): boolean => BATCH_TRANSITIONS[status].length === 0;

/** The statuses a batch may move to `to` from. */
export function sourcesOf(to: BatchStatusName): BatchStatusName[] {
  return (Object.keys(BATCH_TRANSITIONS) as BatchStatusName[]).filter((from) => BATCH_TRANSITIONS[from].includes(to));
}
