import type { RequestFailedEvent } from '@gw/contracts';
import type { QueryConfig } from 'pg';
import { NIL_USER } from '../generations/generation-rows.js';

/**
 * One INSERT of any number of failures (array parameters, one prepared text whatever the count);
 * a failure already recorded (a redelivery) is skipped, and the same statement adds only the rows
 * it inserted to their hourly sums, in key order so concurrent batches lock rows in one order.
 */
const INSERT_FAILURES = `
  WITH inserted AS (
    INSERT INTO request_failures (failure_id, request_id, workspace_id, key_hash, user_id, model, error_type, status, created_at)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::smallint[], $9::timestamptz[])
    ON CONFLICT (failure_id) DO NOTHING
    RETURNING workspace_id, key_hash, user_id, model, error_type, created_at
  )
  INSERT INTO request_failure_rollups AS total (workspace_id, hour, key_hash, user_id, model, error_type, failures)
    SELECT workspace_id, date_trunc('hour', created_at, 'UTC'), key_hash, COALESCE(user_id, '${NIL_USER}'::uuid), COALESCE(model, ''), error_type, count(*)
    FROM inserted
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (workspace_id, hour, key_hash, user_id, model, error_type) DO UPDATE SET failures = total.failures + excluded.failures`;

export function insertRequestFailures(events: RequestFailedEvent[]): QueryConfig {
  return {
    name: 'inference_insert_request_failures',
    text: INSERT_FAILURES,
    values: [
      events.map((event) => event.failureId),
      events.map((event) => event.requestId),
      events.map((event) => event.workspaceId),
      events.map((event) => event.keyHash),
      events.map((event) => event.userId ?? null),
      events.map((event) => event.model ?? null),
      events.map((event) => event.errorType),
      events.map((event) => event.status),
      events.map((event) => event.createdAt),
    ],
  };
}

/** Failure rows are kept a day past the USAGE stream's 7 (a redelivery must still find its row); the hourly sums stay. */
const REQUEST_FAILURE_RETENTION_DAYS = 8;

export function deleteExpiredRequestFailures(now: number): QueryConfig {
  return {
    text: 'DELETE FROM request_failures WHERE created_at < $1::timestamptz',
    values: [new Date(now - REQUEST_FAILURE_RETENTION_DAYS * 24 * 3_600_000).toISOString()],
  };
}
