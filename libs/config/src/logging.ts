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
];

/**
 * Options for nestjs-pino's LoggerModule, shared by every app. `forRoutes: []` leaves out
 * pino-http's per-request middleware (a child logger and request id for every call): access
 * logs are off anyway, and failures are logged by the exception filters with an error id.
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
    },
  };
}
