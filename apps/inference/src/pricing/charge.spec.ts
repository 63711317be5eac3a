import { describe, expect, it } from 'vitest';
import { Prisma } from '../generated/prisma/client.js';
import { chargeFor } from './charge.js';

const upstream = { input: new Prisma.Decimal('0.000015'), output: new Prisma.Decimal('0.00006'), total: new Prisma.Decimal('0.000075') };

describe('chargeFor', () => {
  it('charges the catalog price on the gateway key, whatever the fee rate', () => {
    expect(chargeFor(upstream, false, '0.05').charged.toFixed()).toBe('0.000075');
  });

  it('charges only the fee on BYOK: 0 by default, a fraction of the upstream cost otherwise', () => {
    expect(chargeFor(upstream, true, '0').charged.toFixed()).toBe('0');
    expect(chargeFor(upstream, true, '0.05').charged.toFixed()).toBe('0.00000375');
    expect(chargeFor(upstream, true, '0.05').upstream.total.toFixed()).toBe('0.000075');
  });

  it('rounds the fee to the 12 places money is stored with', () => {
    const tiny = { ...upstream, total: new Prisma.Decimal('0.000000000003') };
    expect(chargeFor(tiny, true, '0.5').charged.toFixed()).toBe('0.000000000002');
  });
});
