import { counter } from '@gw/metrics';

/**
 * The response cache on `/metrics` of the service that reads or writes it, under its prefix
 * (`inference_response_cache_*`, `gateway_response_cache_*`). Labels: the front door, never a
 * workspace or key.
 */
export function responseCacheMetrics(service: 'inference' | 'gateway') {
  const name = (suffix: string) => `${service}_response_cache_${suffix}`;
  return {
    lookups: counter(name('lookups_total'), 'Response cache lookups by result (hit, miss, refresh)', ['door', 'result']),
    coalesced: counter(name('coalesced_total'), 'Requests answered by an identical request already in flight', ['door']),
    bytesRead: counter(name('read_bytes_total'), 'Compressed bytes read from the response cache on hits', []),
    bytesWritten: counter(name('written_bytes_total'), 'Compressed bytes stored in the response cache', []),
    evicted: counter(name('evicted_total'), 'Entries evicted to keep a workspace under its byte bound', []),
    skipped: counter(name('not_stored_total'), 'Answers not stored, by reason', ['reason']),
    unavailable: counter(name('unavailable_total'), 'Cache commands that failed (Redis unreachable): answered upstream', []),
  };
}

export type ResponseCacheMetrics = ReturnType<typeof responseCacheMetrics>;
