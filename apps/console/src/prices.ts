/** Catalog prices are decimals per token, as strings (never floats); people read and type them per million tokens. */
const DECIMAL = /^\d+(\.\d+)?$/;

export const isDecimal = (value: string) => DECIMAL.test(value.trim());

/** The decimal with its point moved `places` to the right (left when negative), exactly. */
export function shiftDecimal(value: string, places: number): string {
  const [whole = '0', fraction = ''] = value.trim().split('.');
  let digits = whole + fraction;
  let point = whole.length + places;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const integer = digits.slice(0, point).replace(/^0+(?=\d)/, '') || '0';
  const decimals = digits.slice(point).replace(/0+$/, '');
  return decimals ? `${integer}.${decimals}` : integer;
}

export const perMillion = (perTokenPrice: string) => shiftDecimal(perTokenPrice, 6);
export const perToken = (perMillionPrice: string) => shiftDecimal(perMillionPrice, -6);
