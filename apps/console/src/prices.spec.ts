import { describe, expect, it } from 'vitest';
import { perMillion, perToken, shiftDecimal } from './prices';

describe('prices per million tokens', () => {
  it('moves the decimal point exactly, both ways', () => {
    expect(perMillion('0.00000015')).toBe('0.15');
    expect(perMillion('3')).toBe('3000000');
    expect(perMillion('0')).toBe('0');
    expect(perToken('2.5')).toBe('0.0000025');
    expect(perToken('0.15')).toBe('0.00000015');
    expect(perToken('1200')).toBe('0.0012');
    expect(shiftDecimal('10.500', 0)).toBe('10.5');
  });

  it('round-trips a price without passing through a float', () => {
    for (const price of ['0.000000123456789', '0.0000001', '12.345678']) expect(perToken(perMillion(price))).toBe(price);
  });
});
