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

/** Options for nestjs-pino's LoggerModule, shared by every app. */
export function loggerParams(service: string, level: string): Params {
  return {
    pinoHttp: {
      level,
      name: service,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Per-request access logs cost throughput on the hot path; errors are logged by the
      // exception filters with an error id instead.
      autoLogging: false,
      quietReqLogger: true,
    },
  };
}
