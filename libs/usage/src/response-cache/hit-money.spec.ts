import { describe, expect, it } from 'vitest';
import { hitCharge } from './hit-money.js';

describe('hitCharge: the cache price of a hit, exactly', () => {
  it('charges nothing at the default rate 0 and writes the avoided cost canonically', () => {
    expect(hitCharge('0.000150', '0')).toEqual({ charged: '0', avoided: '0.00015' });
    expect(hitCharge('12', '0')).toEqual({ charged: '0', avoided: '12' });
  });

  it('multiplies by the rate without floating point', () => {
    expect(hitCharge('0.00015', '0.1')).toEqual({ charged: '0.000015', avoided: '0.00015' });
    expect(hitCharge('0.3', '0.1')).toEqual({ charged: '0.03', avoided: '0.3' });
    expect(hitCharge('1.5', '1')).toEqual({ charged: '1.5', avoided: '1.5' });
    expect(hitCharge('2', '1.000')).toEqual({ charged: '2', avoided: '2' });
  });

  it('rounds half up at 12 places, as decimal.js ROUND_HALF_UP does', () => {
    expect(hitCharge('0.000000000015', '0.5').charged).toBe('0.000000000008');
    expect(hitCharge('0.000000000013', '0.5').charged).toBe('0.000000000007');
    expect(hitCharge('0.000000000001', '0.4').charged).toBe('0');
  });

  it('refuses what is not a decimal of at most 12 places', () => {
    expect(() => hitCharge('1e-5', '0')).toThrow(/not a decimal/);
    expect(() => hitCharge('0.0000000000001', '0')).toThrow(/12 decimal places/);
  });
});
