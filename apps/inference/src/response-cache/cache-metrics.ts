import { counter } from '@gw/metrics';

/** The response cache on `/metrics` (labels: the front door, never a workspace or key). */
export const cacheMetrics = {
  lookups: counter('inference_response_cache_lookups_total', 'Response cache lookups by result (hit, miss, refresh)', ['door', 'result']),
  coalesced: counter('inference_response_cache_coalesced_total', 'Requests answered by an identical request already in flight', ['door']),
  bytesRead: counter('inference_response_cache_read_bytes_total', 'Compressed bytes read from the response cache on hits', []),
  bytesWritten: counter('inference_response_cache_written_bytes_total', 'Compressed bytes stored in the response cache', []),
  evicted: counter('inference_response_cache_evicted_total', 'Entries evicted to keep a workspace under its byte bound', []),
  skipped: counter('inference_response_cache_not_stored_total', 'Answers not stored, by reason', ['reason']),
  unavailable: counter(
    'inference_response_cache_unavailable_total',
    'Cache commands that failed (Redis unreachable): answered upstream',
    [],
  ),
};
