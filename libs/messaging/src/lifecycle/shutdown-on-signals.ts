import { Logger } from '@nestjs/common';

export interface ShutdownOptions {
  /** Upper bound on the whole shutdown; past it the process exits anyway (code 1). */
  graceMs: number;
  /** What "stop" means for this process: readiness first, then drain, then close. */
  shutdown: (signal: NodeJS.Signals) => Promise<void>;
}

/**
 * SIGTERM (Kubernetes, `npm run down`) and SIGINT (Ctrl-C) start one graceful shutdown; the
 * process exits 0 when it finished, 1 when it failed or the grace period ran out. A second
 * signal while it runs is ignored: the grace period already bounds it.
 */
export function shutdownOnSignals(options: ShutdownOptions): void {
  const logger = new Logger('Shutdown');
  let started = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (started) return;
    started = true;
    logger.log(`${signal}: not ready any more; finishing the requests in flight (grace ${options.graceMs} ms)`);
    // A small margin over the grace period: the steps inside bound themselves by it first.
    const deadline = setTimeout(() => {
      logger.error(`Shutdown did not finish within ${options.graceMs} ms; exiting`);
      process.exit(1);
    }, options.graceMs + 2_000);
    deadline.unref();
    options.shutdown(signal).then(
      () => {
        logger.log('Shutdown complete');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'Shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
