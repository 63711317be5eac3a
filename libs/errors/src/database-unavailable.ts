import { GatewayError } from './gateway-error.js';

/** Prisma's codes for a database it cannot reach, a connection lost, a pool that could not hand one out. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
/** Socket errors of node-postgres (and of Prisma's pg adapter, which passes them on). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN']);
/** PostgreSQL: a connection exception (class 08), the server shutting down or starting, too many connections. */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Prisma's pg adapter names the same failures by kind. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
/** What node-postgres and Prisma say when no code says it. */
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Can't reach database server|Server has closed the connection|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command/i;

/**
 * True when `error` (or an error it carries: `cause`, Prisma's `meta`) says the service's
 * PostgreSQL could not be reached or dropped the connection: a state that passes, not a bug.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 4 || error === null || typeof error !== 'object') return false;
  const candidate = error as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: unknown };
  if (typeof candidate.code === 'string') {
    const code = candidate.code;
    if (PRISMA_CODES.has(code) || SOCKET_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (typeof candidate.kind === 'string' && ADAPTER_KINDS.has(candidate.kind)) return true;
  if (typeof candidate.message === 'string' && MESSAGES.test(candidate.message)) return true;
  if (isDatabaseUnavailable(candidate.cause, depth + 1)) return true;
  if (candidate.meta && typeof candidate.meta === 'object')
    return Object.values(candidate.meta as Record<string, unknown>).some((value) => isDatabaseUnavailable(value, depth + 1));
  return false;
}

/** The retryable 503 a request gets while its service's database is unreachable (instead of a 500). */
export function databaseUnavailable(): GatewayError {
  return new GatewayError(503, 'The service database is unreachable; retry shortly', {
    errorType: 'server',
    metadata: { reason: 'database_unavailable', retryable: true },
  });
}
