/**
 * What a failed write says about the data:
 * - `transient`: the store is unreachable or busy (connection lost, pool timeout, deadlock,
 *   serialization failure, shutdown): the same write will work later, whatever the data;
 * - `permanent`: the store refused this data (PostgreSQL data exceptions, class 22, and
 *   integrity constraint violations, class 23: NUL in text, a value too long, a bad number);
 * - `unknown`: anything else. Consumers split the batch on it, and count an event as poison
 *   only if it fails alone while others were stored.
 */
export type StoreErrorKind = 'transient' | 'permanent' | 'unknown';

const SQLSTATE = /^[0-9A-Z]{5}$/;
/** SQLSTATE classes: connection exception, transaction rollback, insufficient resources, operator intervention, system error. */
const TRANSIENT_CLASSES = new Set(['08', '40', '53', '57', '58']);
const PERMANENT_CLASSES = new Set(['22', '23']);
/** Prisma's codes for an unreachable server, a timeout, a closed connection, the pool exhausted. */
const TRANSIENT_PRISMA = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2034']);
const TRANSIENT_NODE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
const TRANSIENT_MESSAGE =
  /can't reach database server|connection terminated|terminating connection|server closed the connection|timeout exceeded when trying to connect|connection refused|econnrefused/i;

export function classifyStoreError(error: unknown): StoreErrorKind {
  const codes: string[] = [];
  collectCodes(error, codes, 0, new Set());
  for (const code of codes) {
    if (TRANSIENT_PRISMA.has(code) || TRANSIENT_NODE.has(code)) return 'transient';
    if (SQLSTATE.test(code) && !code.startsWith('P')) {
      const sqlClass = code.slice(0, 2);
      if (TRANSIENT_CLASSES.has(sqlClass)) return 'transient';
      if (PERMANENT_CLASSES.has(sqlClass)) return 'permanent';
    }
  }
  if (error instanceof Error && TRANSIENT_MESSAGE.test(error.message)) return 'transient';
  return 'unknown';
}

/** Codes anywhere on the error: Prisma nests the driver's (`meta`, `cause`, `originalCode`). */
function collectCodes(value: unknown, codes: string[], depth: number, seen: Set<unknown>): void {
  if (depth > 5 || value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  const record = value as Record<string, unknown>;
  for (const key of ['originalCode', 'code', 'sqlState']) {
    const code = record[key];
    if (typeof code === 'string') codes.push(code);
  }
  for (const key of ['cause', 'meta', 'driverAdapterError', 'error']) collectCodes(record[key], codes, depth + 1, seen);
}
