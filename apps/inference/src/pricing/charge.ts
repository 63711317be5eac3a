import { Prisma } from '../generated/prisma/client.js';
import type { Cost } from './cost.js';

/** Money columns and events carry 12 decimal places (generations.cost is numeric(24,12)). */
const MONEY_SCALE = 12;

/**
 * What one generation costs whom. `upstream` is the provider's price from the catalog.
 * `charged` is what the workspace's credits pay: the upstream price when the gateway's own
 * provider key was used; on the workspace's own key (BYOK) the provider bills the workspace
 * directly, so only the gateway's fee (`BYOK_FEE_RATE` x upstream, default 0) is charged.
 */
export interface Charge {
  upstream: Cost;
  charged: Prisma.Decimal;
  isByok: boolean;
}

export function chargeFor(upstream: Cost, isByok: boolean, byokFeeRate: Prisma.Decimal | string): Charge {
  const charged = isByok ? upstream.total.mul(byokFeeRate).toDecimalPlaces(MONEY_SCALE, Prisma.Decimal.ROUND_HALF_UP) : upstream.total;
  return { upstream, charged, isByok };
}
