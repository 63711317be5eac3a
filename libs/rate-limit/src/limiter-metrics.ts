import { counter } from '@gw/metrics';

/** Calls a limiter refused, by limiter name (a fixed set: `sign`, `key-rpm`, ...). */
export const refusals = counter('rate_limit_refusals_total', 'Calls refused by a rate or concurrency limiter', ['limiter']);
