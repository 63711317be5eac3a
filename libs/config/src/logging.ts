import { logContext } from '@gw/telemetry';
import type { Params } from 'nestjs-pino';

/**
 * Paths pino removes from every log line. Bearer tokens, API keys and BYOK secrets must
 * never reach a log, whatever object a developer passes to the logger.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  '*.apiKey',
  '*.api_key',
  '*.secret',
  '*.key',
  '*.password',
  'authorization',
  // BYOK: the secret in create/update payloads ({principal, credential: {key}}), the decrypted
  // credentials of a resolve reply, and the key-encryption keys themselves.
  '*.*.key',
  '*.*.apiKey',
  'credentials[*].apiKey',
  '*.credentials[*].apiKey',
  'BYOK_KEKS',
  '*.BYOK_KEKS',
];

/**
 * Options for nestjs-pino's LoggerModule, shared by every app. `forRoutes: []` leaves out
 * pino-http's per-request middleware (a child logger and request id for every call): access
 * logs are off anyway, and failures are logged by the exception filters with an error id.
 * `mixin` adds the current request's `request_id` (and with tracing on `trace_id`, `span_id`)
 * to every line written while it is handled, in every service (issue 16).
 */
export function loggerParams(service: string, level: string): Params {
  return {
    forRoutes: [],
    pinoHttp: {
      level,
      name: service,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      autoLogging: false,
      quietReqLogger: true,
      mixin: logContext,
    },
  };
}
