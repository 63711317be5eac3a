import { counter } from '@gw/metrics';

const received = counter('management_usage_events_total', 'Usage events received from the USAGE stream', []);
const counted = counter('management_usage_events_counted_total', 'Usage events counted (each generation once)', []);
const duplicates = counter('management_usage_events_duplicate_total', 'Usage events dropped as already counted (redeliveries)', []);

/** One committed batch: what arrived, and how much of it was new. */
export function recordUsageBatch(receivedCount: number, countedCount: number): void {
  received.inc(receivedCount);
  counted.inc(countedCount);
  duplicates.inc(receivedCount - countedCount);
}
